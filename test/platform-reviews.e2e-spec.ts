import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import jsonPatch, { type Operation } from 'fast-json-patch';
import { DataSource } from 'typeorm';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { call } from './support/http.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';
import {
  createPlatformVersion,
  createRevisionFixture,
  eventsOf,
  type RevisionFixture,
  revisionRows,
  stage,
} from './support/revision-factories.js';

interface AuditLine {
  tenant_id: number | null;
  credential_ref: string | null;
  actor: string | null;
  action: string;
  target: string | null;
  outcome: string;
  detail: string | null;
}

describe('platform API: the review queue', () => {
  let t: TestApp;
  let key: TestPlatformKey;
  let otherScopes: TestPlatformKey;

  beforeAll(async () => {
    t = await startTestApp();
    key = await createPlatformKey(t.app, ['platform:reviews'], 'review-ui');
    otherScopes = await createPlatformKey(
      t.app,
      ['platform:tenants', 'platform:content', 'platform:audit', 'platform:events'],
      'no-reviews',
    );
  });
  afterAll(() => t?.close());

  async function staged(f: RevisionFixture, content: Record<string, unknown>): Promise<number> {
    const res = await stage(t.baseUrl, f.caller.auth, f.documentId, { content });
    expect(res.status).toBe(201);
    return res.body.revisionId as number;
  }

  const decide = (
    revisionId: number,
    decision: 'accept' | 'reject',
    options: { actor?: string; body?: unknown; auth?: string } = {},
  ) =>
    platformCall(t, 'POST', `/revisions/${revisionId}/${decision}`, {
      auth: options.auth ?? key.auth,
      actor: options.actor,
      body: options.body,
    });

  async function auditLines(target: string): Promise<AuditLine[]> {
    await t.app.get(AuditService).drain();
    return t.app.get(DataSource).query(
      `SELECT tenant_id, credential_ref, actor, action, target, outcome, detail
         FROM audit_log WHERE target = $1 ORDER BY id`,
      [target],
    );
  }

  it('refuses every route without a key (401), and with a key lacking platform:reviews (403)', async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { refused: true });
    const routes: Array<[string, string]> = [
      ['GET', '/revisions'],
      ['GET', `/revisions/${id}`],
      ['POST', `/revisions/${id}/accept`],
      ['POST', `/revisions/${id}/reject`],
    ];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? {} : undefined;
      const none = await platformCall(t, method, path, { actor: 'jane', body });
      expect({ path, status: none.status, code: none.body.code }).toEqual({
        path,
        status: 401,
        code: 'unauthenticated',
      });
      const wrong = await platformCall(t, method, path, {
        auth: otherScopes.auth,
        actor: 'jane',
        body,
      });
      expect({ path, status: wrong.status, code: wrong.body.code }).toEqual({
        path,
        status: 403,
        code: 'insufficient_scope',
      });
      // the tenant's own token is not a platform credential
      const tenantToken = await platformCall(t, method, path, {
        auth: f.caller.auth,
        actor: 'jane',
        body,
      });
      expect({ path, status: tenantToken.status }).toEqual({ path, status: 401 });
    }
    expect((await revisionRows(t.app, f.documentId))[0]!.status).toBe('staged');
  });

  it('is not on the integration port: a platform key is refused there', async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { elsewhere: true });
    for (const path of [
      `/platform/v1/revisions/${id}`,
      `/api/v1/documents/${f.documentId}/external-revisions/${id}`,
    ]) {
      const res = await call(t.baseUrl, 'GET', `${t.baseUrl}${path}`, { auth: key.auth });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    const post = await call(t.baseUrl, 'POST', `${t.baseUrl}/platform/v1/revisions/${id}/accept`, {
      auth: key.auth,
      headers: { 'x-acting-user': 'jane' },
      body: {},
    });
    expect(post.status).toBe(401);
    expect((await revisionRows(t.app, f.documentId))[0]!.status).toBe('staged');
  });

  it('lists the queue across tenants, oldest first, each item with its tenant', async () => {
    const a = await createRevisionFixture(t.app);
    const b = await createRevisionFixture(t.app);
    const ids = [await staged(a, { q: 1 }), await staged(b, { q: 2 }), await staged(a, { q: 3 })];
    const seen: Array<{ revisionId: number; tenant_id: number }> = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const res = await platformCall(t, 'GET', `/revisions${query}`, { auth: key.auth });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    const mine = seen.filter((i) => ids.includes(i.revisionId));
    expect(mine.map((i) => [i.revisionId, i.tenant_id])).toEqual([
      [ids[0], a.caller.tenantId],
      [ids[1], b.caller.tenantId],
      [ids[2], a.caller.tenantId],
    ]);
    expect(seen.every((i) => (i as { status?: string }).status === 'staged')).toBe(true);

    const one = await platformCall(
      t,
      'GET',
      `/revisions?tenantId=${b.caller.tenantId}&status=staged`,
      { auth: key.auth },
    );
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      data: [
        {
          tenant_id: b.caller.tenantId,
          revisionId: ids[1],
          documentId: b.documentId,
          base_version_id: b.versionIds[0],
          status: 'staged',
          content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          source_reference: null,
          created_at: expect.any(String),
          decided_at: null,
          decided_by: null,
          resulting_version_id: null,
          decision_note: null,
        },
      ],
      next_cursor: null,
    });
    const byDocument = await platformCall(t, 'GET', `/revisions?documentId=${a.documentId}`, {
      auth: key.auth,
    });
    expect(byDocument.body.data.map((i: { revisionId: number }) => i.revisionId)).toEqual([
      ids[0],
      ids[2],
    ]);
  });

  it('pages 100 by default and refuses bad parameters', async () => {
    const f = await createRevisionFixture(t.app);
    await t.app.get(DataSource).query(
      `INSERT INTO external_revisions (tenant_id, document_id, base_version_id, status, content,
                                       content_hash, credential_ref)
       SELECT $1, $2, $3, 'staged', '{}', repeat('0', 64), 'bulk' FROM generate_series(1, 101)`,
      [f.caller.tenantId, f.documentId, f.versionIds[0]],
    );
    const first = await platformCall(t, 'GET', `/revisions?tenantId=${f.caller.tenantId}`, {
      auth: key.auth,
    });
    expect(first.body.data).toHaveLength(100);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await platformCall(
      t,
      'GET',
      `/revisions?tenantId=${f.caller.tenantId}&cursor=${first.body.next_cursor}`,
      { auth: key.auth },
    );
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
    // the cursor of one tenant's queue is not a cursor of the whole queue
    const foreign = await platformCall(t, 'GET', `/revisions?cursor=${first.body.next_cursor}`, {
      auth: key.auth,
    });
    expect(foreign.status).toBe(400);

    for (const query of [
      'status=pending',
      'limit=0',
      'limit=1001',
      'tenantId=0',
      'tenantId=abc',
      'documentId=-1',
      'tenant=1',
    ]) {
      const res = await platformCall(t, 'GET', `/revisions?${query}`, { auth: key.auth });
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
    }
  });

  it('shows a candidate with its base and diff; a superseded one also with diff_to_current', async () => {
    const f = await createRevisionFixture(t.app);
    const base = { title: 'Policy', sections: ['Scope'] };
    const baseId = await createPlatformVersion(t.app, f.caller.tenantId, f.documentId, base);
    const candidate = { title: 'Policy v2', sections: ['Scope', 'Roles'] };
    const id = await staged(f, candidate);

    const res = await platformCall(t, 'GET', `/revisions/${id}`, { auth: key.auth });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tenant_id: f.caller.tenantId,
      revisionId: id,
      status: 'staged',
      base: { versionId: baseId, content: base },
      candidate: { content: candidate, html: null },
      current_version_id: baseId,
      diff_to_current: null,
    });
    expect(
      jsonPatch.applyPatch(structuredClone(base), res.body.diff as Operation[], true, false)
        .newDocument,
    ).toEqual(candidate);

    const current = { title: 'Policy v2', sections: ['Scope'], owner: 'ops' };
    const now = await createPlatformVersion(t.app, f.caller.tenantId, f.documentId, current);
    const superseded = await platformCall(t, 'GET', `/revisions/${id}`, { auth: key.auth });
    expect(superseded.body).toMatchObject({
      status: 'superseded',
      current_version_id: now,
      base: { versionId: baseId },
    });
    expect(superseded.body.diff_to_current).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: '/owner' },
        { op: 'add', path: '/sections/1', value: 'Roles' },
      ]),
    );
    expect(superseded.body.diff_to_current).toHaveLength(2);

    const unknown = await platformCall(t, 'GET', '/revisions/2000000000', { auth: key.auth });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    const bad = await platformCall(t, 'GET', '/revisions/abc', { auth: key.auth });
    expect(bad.status).toBe(400);
  });

  it('accepts for the acting user: decided_by, note, events, audit line with key and actor', async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { accepted: true });
    const res = await decide(id, 'accept', {
      actor: 'Jane Doe <jane@acme>',
      body: { note: 'approved in review' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      revisionId: id,
      tenant_id: f.caller.tenantId,
      status: 'accepted',
      resulting_version_id: expect.any(Number),
    });
    expect((await revisionRows(t.app, f.documentId))[0]).toMatchObject({
      status: 'accepted',
      decided_by: 'Jane Doe <jane@acme>',
      decision_note: 'approved in review',
      resulting_version_id: res.body.resulting_version_id,
    });
    const types = (await eventsOf(t.app, f.caller.tenantId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['document.version_created', 'external_revision.accepted']);

    // a second decision: 409, filed under the revision's tenant too
    const again = await decide(id, 'accept', { actor: 'joe' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('revision_not_staged');
    const rejectAgain = await decide(id, 'reject', { actor: 'joe' });
    expect(rejectAgain.status).toBe(409);
    expect(rejectAgain.body.code).toBe('revision_not_staged');

    expect(await auditLines(`revision:${id}`)).toEqual([
      {
        tenant_id: f.caller.tenantId,
        credential_ref: 'platform:review-ui',
        actor: 'Jane Doe <jane@acme>',
        action: 'revision.accept',
        target: `revision:${id}`,
        outcome: 'success',
        detail: null,
      },
      {
        tenant_id: f.caller.tenantId,
        credential_ref: 'platform:review-ui',
        actor: 'joe',
        action: 'revision.accept',
        target: `revision:${id}`,
        outcome: 'failure',
        detail: 'revision_not_staged',
      },
      {
        tenant_id: f.caller.tenantId,
        credential_ref: 'platform:review-ui',
        actor: 'joe',
        action: 'revision.reject',
        target: `revision:${id}`,
        outcome: 'failure',
        detail: 'revision_not_staged',
      },
    ]);
  });

  it('decides a candidate once when reviewers decide it at the same time', async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { raced: true });
    const answers = await Promise.all([
      decide(id, 'accept', { actor: 'jane' }),
      decide(id, 'reject', { actor: 'joe' }),
      decide(id, 'accept', { actor: 'rita' }),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.code).toBe('revision_not_staged');
    }
    const winner = answers.find((a) => a.status === 200)!;
    const [row] = await revisionRows(t.app, f.documentId);
    expect(row!.status).toBe(winner.body.status);
    const versions = (await eventsOf(t.app, f.caller.tenantId, 'document.version_created')).length;
    // the fixture's version 1, and one more only if the accept won
    expect(versions).toBe(winner.body.status === 'accepted' ? 2 : 1);
  });

  it('refuses to accept a superseded candidate (409) and rejects a staged one', async () => {
    const f = await createRevisionFixture(t.app);
    const old = await staged(f, { n: 1 });
    await createPlatformVersion(t.app, f.caller.tenantId, f.documentId, { n: 'platform' });
    const refused = await decide(old, 'accept', { actor: 'jane' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('revision_not_staged');

    const fresh = await staged(f, { n: 2 });
    const rejected = await decide(fresh, 'reject', { actor: 'rita' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({
      revisionId: fresh,
      tenant_id: f.caller.tenantId,
      status: 'rejected',
      resulting_version_id: null,
    });
    expect((await revisionRows(t.app, f.documentId)).map((r) => [r.status, r.decided_by])).toEqual([
      ['superseded', null],
      ['rejected', 'rita'],
    ]);
    const types = (await eventsOf(t.app, f.caller.tenantId)).map((e) => e.type);
    expect(types.at(-1)).toBe('external_revision.rejected');
  });

  it('needs X-Acting-User and a closed body on decisions; answers 404 for an unknown id', async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { x: 1 });
    for (const decision of ['accept', 'reject'] as const) {
      for (const actor of [undefined, '', 'x'.repeat(201)]) {
        const res = await decide(id, decision, { actor, body: {} });
        expect({ decision, actor, status: res.status, code: res.body.code }).toEqual({
          decision,
          actor,
          status: 400,
          code: 'validation_failed',
        });
      }
      for (const body of [{ note: 'x'.repeat(2001) }, { note: 1 }, { note: 'ok', by: 'me' }]) {
        const res = await decide(id, decision, { actor: 'jane', body });
        expect({ decision, body, status: res.status }).toEqual({ decision, body, status: 400 });
      }
      const unknown = await decide(2_000_000_000, decision, { actor: 'jane', body: {} });
      expect(unknown.status).toBe(404);
    }
    expect((await revisionRows(t.app, f.documentId))[0]!.status).toBe('staged');
    // without a body at all: accepted, no note
    const bare = await decide(id, 'accept', { actor: 'jane' });
    expect(bare.status).toBe(200);
    expect((await revisionRows(t.app, f.documentId))[0]).toMatchObject({
      status: 'accepted',
      decided_by: 'jane',
      decision_note: null,
    });
  });
});
