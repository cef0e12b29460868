import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { ValidationFailedError } from '../src/common/http/app-error.js';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import { RevisionsService } from '../src/modules/revisions/revisions.service.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, createClient, issueToken } from './support/factories.js';
import { call } from './support/http.js';
import {
  createPlatformVersion,
  createRevisionFixture,
  currentHash,
  eventsOf,
  type RevisionFixture,
  revisionRows,
  stage,
} from './support/revision-factories.js';

const MIB = 1_048_576;

describe('candidate external revisions', () => {
  let t: TestApp;
  let decisions: RevisionDecisionService;

  beforeAll(async () => {
    t = await startTestApp();
    decisions = t.app.get(RevisionDecisionService);
  });
  afterAll(async () => {
    await t.close();
  });

  const fixture = (versions = 1) => createRevisionFixture(t.app, { versions });
  const post = (f: RevisionFixture, body: unknown, headers?: Record<string, string>) =>
    stage(t.baseUrl, f.caller.auth, f.documentId, body, headers);

  function expectValidation(res: { status: number; body: any }, field: string) {
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }

  describe('staging', () => {
    it('answers 201 with the candidate, its Location and a staged event', async () => {
      const f = await fixture();
      const res = await post(f, {
        content: { b: 1, a: 'x' },
        source_reference: 'DMS-42',
        html: '<p>x</p>',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        revisionId: expect.any(Number),
        documentId: f.documentId,
        base_version_id: f.versionIds[0],
        status: 'staged',
        content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        source_reference: 'DMS-42',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(res.headers.get('location')).toBe(
        `/api/v1/documents/${f.documentId}/external-revisions/${res.body.revisionId}`,
      );
      // what the 201 said is what a later read says, to the millisecond
      const read = await call(
        t.baseUrl,
        'GET',
        `/documents/${f.documentId}/external-revisions/${res.body.revisionId}`,
        { auth: f.caller.auth },
      );
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject(res.body);
      // the hash is of the canonical JSON: key order does not matter
      const again = await post(f, { content: { a: 'x', b: 1 } });
      expect(again.body.content_hash).toBe(res.body.content_hash);
      expect(again.body.source_reference).toBeNull();

      const rows = await revisionRows(t.app, f.documentId);
      expect(rows[0]).toMatchObject({
        status: 'staged',
        credential_ref: `client:${f.caller.client.id}`,
      });
      const events = await eventsOf(t.app, f.caller.tenantId, 'external_revision.staged');
      expect(events[0]!.data).toEqual({
        revisionId: res.body.revisionId,
        documentId: f.documentId,
        projectId: f.projectId,
        status: 'staged',
        base_version_id: f.versionIds[0],
        resulting_version_id: null,
      });
      // staging never touches the document
      const doc = await call(t.baseUrl, 'GET', `/documents/${f.documentId}`, {
        auth: f.caller.auth,
      });
      expect(doc.body.versions).toHaveLength(1);
    });

    describe('validation', () => {
      it('refuses a missing content, an array, null and a string', async () => {
        const f = await fixture();
        expectValidation(await post(f, {}), 'content');
        expectValidation(await post(f, { content: [1, 2] }), 'content');
        expectValidation(await post(f, { content: null }), 'content');
        expectValidation(await post(f, { content: 'text' }), 'content');
        expect(await revisionRows(t.app, f.documentId)).toEqual([]);
      });

      it('accepts html of exactly 1 MiB and refuses 1 MiB + 1 byte', async () => {
        const f = await fixture();
        const ok = await post(f, { content: {}, html: 'a'.repeat(MIB) });
        expect(ok.status).toBe(201);
        const detail = await call(
          t.baseUrl,
          'GET',
          `/documents/${f.documentId}/external-revisions/${ok.body.revisionId}`,
          { auth: f.caller.auth },
        );
        expect(detail.body.html).toHaveLength(MIB);
        expectValidation(await post(f, { content: {}, html: 'a'.repeat(MIB + 1) }), 'html');
      });

      it('counts html in bytes of UTF-8, not characters', async () => {
        const f = await fixture();
        // 'é' is 2 bytes: half a MiB of them is exactly 1 MiB
        expect((await post(f, { content: {}, html: 'é'.repeat(MIB / 2) })).status).toBe(201);
        // one more: far fewer than 1 Mi characters, but over 1 MiB of bytes
        expectValidation(await post(f, { content: {}, html: 'é'.repeat(MIB / 2 + 1) }), 'html');
        // a 4-byte character over the limit by 3 bytes
        expectValidation(await post(f, { content: {}, html: 'a'.repeat(MIB - 1) + '😀' }), 'html');
      });

      it('accepts a source_reference of 500 characters and refuses 501', async () => {
        const f = await fixture();
        expect((await post(f, { content: {}, source_reference: 'r'.repeat(500) })).status).toBe(
          201,
        );
        // characters are code points: 500 emoji are 1000 UTF-16 units and still allowed
        const emoji = await post(f, { content: {}, source_reference: '😀'.repeat(500) });
        expect(emoji.status).toBe(201);
        expect(emoji.body.source_reference).toBe('😀'.repeat(500));
        expectValidation(
          await post(f, { content: {}, source_reference: 'r'.repeat(501) }),
          'source_reference',
        );
        expectValidation(await post(f, { content: {}, source_reference: 5 }), 'source_reference');
      });

      it('refuses unknown fields', async () => {
        const f = await fixture();
        const res = await post(f, { content: {}, sourceReference: 'typo' });
        expectValidation(res, 'sourceReference');
      });

      it('refuses a base_version_id that is not a positive integer', async () => {
        const f = await fixture();
        expectValidation(await post(f, { content: {}, base_version_id: '1' }), 'base_version_id');
        expectValidation(await post(f, { content: {}, base_version_id: 1.5 }), 'base_version_id');
        expectValidation(await post(f, { content: {}, base_version_id: 0 }), 'base_version_id');
      });

      it('refuses a base_version_id of another document as validation_failed', async () => {
        const f = await fixture();
        const other = await createRevisionFixture(t.app, { tenantId: f.caller.tenantId });
        const res = await post(f, { content: {}, base_version_id: other.versionIds[0] });
        expectValidation(res, 'base_version_id');
      });

      it('refuses content and strings PostgreSQL cannot store instead of failing', async () => {
        const f = await fixture();
        expectValidation(await post(f, { content: { a: 'x\u0000y' } }), 'content.a');
        expectValidation(await post(f, { content: { 'k\u0000': 1 } }), 'content["k\\u0000"]');
        expectValidation(
          await post(f, { content: { a: [{ b: ['\\\\\u0000'] }] } }),
          'content.a[0].b[0]',
        );
        expectValidation(
          await call(t.baseUrl, 'POST', `/documents/${f.documentId}/external-revisions`, {
            auth: f.caller.auth,
            rawBody: '{"content":{"n":1e400}}',
            headers: { 'content-type': 'application/json' },
          }),
          'content.n',
        );
        expectValidation(await post(f, { content: {}, html: 'a\u0000' }), 'html');
      });

      it('stores text that only looks like an escaped NUL (a backslash, then "u0000") as sent', async () => {
        const f = await fixture();
        const content = { a: '\\u0000', '\\\\\\u0000k': ['x\\\\\\u0000'] };
        const res = await post(f, { content });
        expect(res.status).toBe(201);
        const body = res.body as { revisionId: number };
        const read = await call(
          t.baseUrl,
          'GET',
          `/documents/${f.documentId}/external-revisions/${body.revisionId}`,
          { auth: f.caller.auth },
        );
        expect((read.body as { content: unknown }).content).toEqual(content);
      });

      it('refuses bad headers: weak or malformed If-Match, an over-long Idempotency-Key', async () => {
        const f = await fixture();
        const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
        expectValidation(await post(f, { content: {} }, { 'if-match': `W/"${hash}"` }), 'If-Match');
        expectValidation(await post(f, { content: {} }, { 'if-match': 'not-a-hash' }), 'If-Match');
        expectValidation(
          await post(f, { content: {} }, { 'idempotency-key': 'k'.repeat(256) }),
          'Idempotency-Key',
        );
        expect(
          (await post(f, { content: {} }, { 'idempotency-key': 'k'.repeat(255) })).status,
        ).toBe(201);
      });

      it('validates before looking at the document (400 before 404)', async () => {
        const f = await fixture();
        const missing = 2_000_000_000;
        expectValidation(
          await stage(t.baseUrl, f.caller.auth, missing, { content: [] }),
          'content',
        );
        expectValidation(
          await stage(t.baseUrl, f.caller.auth, missing, { content: {} }, { 'if-match': 'W/"x"' }),
          'If-Match',
        );
        expect((await stage(t.baseUrl, f.caller.auth, missing, { content: {} })).status).toBe(404);
      });
    });

    describe('version conflicts', () => {
      it('refuses a stale base_version_id and names base and current', async () => {
        const f = await fixture(2);
        const [v1, v2] = f.versionIds as [number, number];
        const res = await post(f, { content: {}, base_version_id: v1 });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('version_conflict');
        expect(res.body.detail).toBe(`base version ${v1} is no longer current (current: ${v2})`);
        expect(res.body.errors).toBeUndefined();
        const ok = await post(f, { content: {}, base_version_id: v2 });
        expect(ok.status).toBe(201);
        expect(ok.body.base_version_id).toBe(v2);
      });

      it('refuses a stale If-Match, quoted or bare', async () => {
        const f = await fixture();
        const oldHash = await currentHash(t.app, f.caller.tenantId, f.documentId);
        await createPlatformVersion(t.app, f.caller.tenantId, f.documentId, { v: 2 });
        for (const tag of [`"${oldHash}"`, oldHash]) {
          const res = await post(f, { content: {} }, { 'if-match': tag });
          expect(res.status).toBe(400);
          expect(res.body.code).toBe('version_conflict');
        }
        expect(await revisionRows(t.app, f.documentId)).toEqual([]);
      });

      it('accepts the current hash quoted, bare, in a list, and *', async () => {
        const f = await fixture();
        const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
        const other = 'f'.repeat(64);
        for (const tag of [`"${hash}"`, hash, hash.toUpperCase(), `"${other}", "${hash}"`, '*']) {
          const res = await post(f, { content: { tag } }, { 'if-match': tag });
          withMessage(tag, () => expect(res.status).toBe(201));
        }
        const res = await post(f, { content: {} }, { 'if-match': `"${other}"` });
        expect(res.body.code).toBe('version_conflict');
      });
    });

    describe('idempotency', () => {
      it('replays the first response for the same key and body, without a second candidate', async () => {
        const f = await fixture();
        const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
        const headers = { 'idempotency-key': 'order-1', 'if-match': `"${hash}"` };
        const first = await post(f, { content: { a: 1, b: 2 } }, headers);
        expect(first.status).toBe(201);
        // same body in another key order, If-Match bare instead of quoted: the same request
        const again = await post(
          f,
          { content: { b: 2, a: 1 } },
          { 'idempotency-key': 'order-1', 'if-match': hash },
        );
        expect(again.status).toBe(201);
        // the first response again, byte for byte
        expect(again.text).toBe(first.text);
        expect(again.headers.get('location')).toBe(first.headers.get('location'));
        expect(await revisionRows(t.app, f.documentId)).toHaveLength(1);
        expect(await eventsOf(t.app, f.caller.tenantId, 'external_revision.staged')).toHaveLength(
          1,
        );
      });

      it('refuses the same key with another body or other headers (409)', async () => {
        const f = await fixture();
        await post(f, { content: { a: 1 } }, { 'idempotency-key': 'k1' });
        const other = await post(f, { content: { a: 2 } }, { 'idempotency-key': 'k1' });
        expect(other.status).toBe(409);
        expect(other.body.code).toBe('idempotency_key_reused');
        const withIfMatch = await post(
          f,
          { content: { a: 1 } },
          { 'idempotency-key': 'k1', 'if-match': '*' },
        );
        expect(withIfMatch.body.code).toBe('idempotency_key_reused');
        expect(await revisionRows(t.app, f.documentId)).toHaveLength(1);
      });

      it('scopes keys to the credential and the document', async () => {
        const f = await fixture();
        const doc2 = await createRevisionFixture(t.app, { tenantId: f.caller.tenantId });
        const client2 = await createClient(t.app, f.caller.tenantId);
        const auth2 = `Bearer ${await issueToken(t.app, client2)}`;
        const body = { content: { a: 1 } };
        const h = { 'idempotency-key': 'shared' };
        const a = await post(f, body, h);
        const b = await stage(t.baseUrl, auth2, f.documentId, body, h);
        const c = await stage(t.baseUrl, f.caller.auth, doc2.documentId, body, h);
        expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
        expect(new Set([a.body.revisionId, b.body.revisionId, c.body.revisionId]).size).toBe(3);
      });

      it('forgets a key after 24 hours', async () => {
        const f = await fixture();
        const first = await post(f, { content: { a: 1 } }, { 'idempotency-key': 'old' });
        await t.app.get(DataSource).query(
          `UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second'
              WHERE tenant_id = $1 AND key = 'old'`,
          [f.caller.tenantId],
        );
        const fresh = await post(f, { content: { a: 2 } }, { 'idempotency-key': 'old' });
        expect(fresh.status).toBe(201);
        expect(fresh.body.revisionId).not.toBe(first.body.revisionId);
        const replay = await post(f, { content: { a: 2 } }, { 'idempotency-key': 'old' });
        expect(replay.body.revisionId).toBe(fresh.body.revisionId);
      });

      it('does not remember a refused request: the key can be retried', async () => {
        const f = await fixture();
        const next = f.versionIds[0]! + 1_000_000;
        const body = { content: {}, base_version_id: next };
        expect((await post(f, body, { 'idempotency-key': 'retry' })).status).toBe(400);
        const ok = await post(f, { content: {} }, { 'idempotency-key': 'retry' });
        expect(ok.status).toBe(201);
      });
    });
  });

  describe('reads', () => {
    it('lists candidates ascending without content and html; one read has both', async () => {
      const f = await fixture();
      const a = await post(f, { content: { n: 1 }, html: '<b>1</b>' });
      const b = await post(f, { content: { n: 2 } });
      const list = await call(t.baseUrl, 'GET', `/documents/${f.documentId}/external-revisions`, {
        auth: f.caller.auth,
      });
      expect(list.status).toBe(200);
      expect(list.body.data.map((r: { revisionId: number }) => r.revisionId)).toEqual([
        a.body.revisionId,
        b.body.revisionId,
      ]);
      expect(list.body.data[0]).toEqual({
        ...a.body,
        decided_at: null,
        decided_by: null,
        resulting_version_id: null,
        decision_note: null,
      });
      const one = await call(
        t.baseUrl,
        'GET',
        `/documents/${f.documentId}/external-revisions/${a.body.revisionId}`,
        { auth: f.caller.auth },
      );
      expect(one.status).toBe(200);
      expect(one.body).toEqual({
        ...list.body.data[0],
        content: { n: 1 },
        html: '<b>1</b>',
      });
    });

    it("answers 404 for another tenant's document or revision, and a revision of another document", async () => {
      const f = await fixture();
      const staged = await post(f, { content: {} });
      const stranger = await createCaller(t.app, { plan: 'professional' });
      const paths = [
        `/documents/${f.documentId}/external-revisions`,
        `/documents/${f.documentId}/external-revisions/${staged.body.revisionId}`,
      ];
      for (const path of paths) {
        const res = await call(t.baseUrl, 'GET', path, { auth: stranger.auth });
        withMessage(path, () => expect(res.status).toBe(404));
        expect(res.body.code).toBe('not_found');
      }
      const foreignStage = await stage(t.baseUrl, stranger.auth, f.documentId, { content: {} });
      expect(foreignStage.status).toBe(404);
      const sibling = await createRevisionFixture(t.app, { tenantId: f.caller.tenantId });
      const wrongDoc = await call(
        t.baseUrl,
        'GET',
        `/documents/${sibling.documentId}/external-revisions/${staged.body.revisionId}`,
        { auth: f.caller.auth },
      );
      expect(wrongDoc.status).toBe(404);
    });

    it('needs documents:read to read and revisions:write plus api.revisions to stage', async () => {
      const f = await fixture();
      const reader = await createCaller(t.app, {
        tenantId: f.caller.tenantId,
        scopes: ['documents:read'],
      });
      expect((await stage(t.baseUrl, reader.auth, f.documentId, { content: {} })).status).toBe(403);
      const starter = await createCaller(t.app, { plan: 'starter' });
      const res = await stage(t.baseUrl, starter.auth, f.documentId, { content: {} });
      expect(res.body.code).toBe('entitlement_required');
    });
  });

  describe('decisions (in-process, RevisionDecisionService)', () => {
    it('accept creates the version, records the decision, supersedes the others, and writes events', async () => {
      const f = await fixture();
      const chosen = await post(f, { content: { chosen: true } });
      const rival = await post(f, { content: { rival: true } });
      const result = await decisions.accept(chosen.body.revisionId, ' jane@acme ', 'looks good');
      expect(result).toEqual({
        revisionId: chosen.body.revisionId,
        status: 'accepted',
        resulting_version_id: expect.any(Number),
      });
      const newVersion = result.resulting_version_id!;

      const version = await call(
        t.baseUrl,
        'GET',
        `/documents/${f.documentId}/versions/${newVersion}`,
        { auth: f.caller.auth },
      );
      expect(version.body.content).toEqual({ chosen: true });
      expect(version.body.content_hash).toBe(chosen.body.content_hash);
      const doc = await call(t.baseUrl, 'GET', `/documents/${f.documentId}`, {
        auth: f.caller.auth,
      });
      expect(doc.body.current_version_id).toBe(newVersion);
      expect(doc.body.versions.at(-1)).toMatchObject({
        versionId: newVersion,
        source: 'external_revision',
      });

      const one = await call(
        t.baseUrl,
        'GET',
        `/documents/${f.documentId}/external-revisions/${chosen.body.revisionId}`,
        { auth: f.caller.auth },
      );
      expect(one.body).toMatchObject({
        status: 'accepted',
        decided_by: 'jane@acme',
        decision_note: 'looks good',
        resulting_version_id: newVersion,
        decided_at: expect.any(String),
      });
      const rows = await revisionRows(t.app, f.documentId);
      expect(rows.find((r) => r.id === rival.body.revisionId)).toMatchObject({
        status: 'superseded',
        decided_by: null,
        resulting_version_id: null,
      });

      // after version 1 and the two stagings
      const events = (await eventsOf(t.app, f.caller.tenantId)).slice(3);
      // the new version supersedes the rival inside the same transaction, then the accept is told
      expect(events.map((e) => e.type)).toEqual([
        'document.version_created',
        'external_revision.superseded',
        'external_revision.accepted',
      ]);
      expect(events[2]!.data).toEqual({
        revisionId: chosen.body.revisionId,
        documentId: f.documentId,
        projectId: f.projectId,
        status: 'accepted',
        base_version_id: f.versionIds[0],
        resulting_version_id: newVersion,
      });
      expect(events[1]!.data).toEqual({
        revisionId: rival.body.revisionId,
        documentId: f.documentId,
        projectId: f.projectId,
        status: 'superseded',
        base_version_id: f.versionIds[0],
        resulting_version_id: null,
      });
    });

    it('reject records the decision and an event, and creates no version', async () => {
      const f = await fixture();
      const staged = await post(f, { content: { no: true } });
      await expect(decisions.reject(staged.body.revisionId, 'joe@acme')).resolves.toEqual({
        revisionId: staged.body.revisionId,
        status: 'rejected',
        resulting_version_id: null,
      });
      const [row] = await revisionRows(t.app, f.documentId);
      expect(row).toMatchObject({
        status: 'rejected',
        decided_by: 'joe@acme',
        decision_note: null,
      });
      expect(row!.decided_at).toBeInstanceOf(Date);
      const rejected = await eventsOf(t.app, f.caller.tenantId, 'external_revision.rejected');
      expect(rejected.map((e) => e.data)).toEqual([
        {
          revisionId: staged.body.revisionId,
          documentId: f.documentId,
          projectId: f.projectId,
          status: 'rejected',
          base_version_id: f.versionIds[0],
          resulting_version_id: null,
        },
      ]);
      expect(await eventsOf(t.app, f.caller.tenantId, 'document.version_created')).toHaveLength(
        1, // version 1 only
      );
    });

    it('refuses to decide twice, and a candidate a platform version superseded', async () => {
      const f = await fixture();
      const a = await post(f, { content: { a: 1 } });
      const b = await post(f, { content: { b: 1 } });
      await decisions.reject(a.body.revisionId, 'jane');
      await expect(decisions.accept(a.body.revisionId, 'jane')).rejects.toMatchObject({
        status: 409,
        code: 'revision_not_staged',
      });
      await expect(decisions.reject(a.body.revisionId, 'jane')).rejects.toMatchObject({
        code: 'revision_not_staged',
      });
      // a platform edit creates a version: the candidate on the older base is superseded
      await createPlatformVersion(t.app, f.caller.tenantId, f.documentId);
      await expect(decisions.accept(b.body.revisionId, 'jane')).rejects.toMatchObject({
        status: 409,
        code: 'revision_not_staged',
      });
      const rows = await revisionRows(t.app, f.documentId);
      expect(rows.map((r) => r.status)).toEqual(['rejected', 'superseded']);
      await expect(decisions.reject(b.body.revisionId, 'jane')).rejects.toMatchObject({
        code: 'revision_not_staged',
      });
    });

    it('refuses an unknown revision and an empty decider', async () => {
      await expect(decisions.accept(2_000_000_000, 'jane')).rejects.toMatchObject({
        code: 'not_found',
      });
      const f = await fixture();
      const a = await post(f, { content: {} });
      await expect(decisions.accept(a.body.revisionId, '  ')).rejects.toBeInstanceOf(
        ValidationFailedError,
      );
      expect((await revisionRows(t.app, f.documentId))[0]!.status).toBe('staged');
    });

    it('a platform version supersedes candidates on an older base in its own transaction', async () => {
      const f = await fixture();
      const old = await post(f, { content: { old: true } });
      const v2 = await createPlatformVersion(t.app, f.caller.tenantId, f.documentId);
      const fresh = await post(f, { content: { fresh: true } });
      // nothing is left to supersede once the version exists
      const tx = t.app.get(TenantTransactions);
      const again = await tx.run(f.caller.tenantId, () =>
        t.app.get(RevisionsService).supersedeStale(f.caller.tenantId, f.documentId, v2),
      );
      expect(again).toEqual([]);
      const rows = await revisionRows(t.app, f.documentId);
      expect(rows.map((r) => [r.id, r.status])).toEqual([
        [old.body.revisionId, 'superseded'],
        [fresh.body.revisionId, 'staged'],
      ]);
      const events = await eventsOf(t.app, f.caller.tenantId, 'external_revision.superseded');
      expect(events.map((e) => e.data.revisionId)).toEqual([old.body.revisionId]);
    });
  });

  describe('no API route decides a candidate', () => {
    it('the OpenAPI document has no write operation on external-revisions but staging', async () => {
      const res = await call(t.baseUrl, 'GET', '/openapi.json');
      expect(res.status).toBe(200);
      const paths = res.body.paths as Record<string, Record<string, unknown>>;
      const writes: string[] = [];
      for (const [path, item] of Object.entries(paths)) {
        for (const method of Object.keys(item)) {
          if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
          const touches = /revision|accept|reject|decide|decision/i.test(path);
          if (touches && method !== 'get') writes.push(`${method.toUpperCase()} ${path}`);
        }
      }
      expect(writes).toEqual(['POST /api/v1/documents/{documentId}/external-revisions']);
      // and the read operations exist, so the walk above really saw the revision paths
      expect(
        paths['/api/v1/documents/{documentId}/external-revisions/{revisionId}'],
      ).toHaveProperty('get');
    });

    it('answers 404 or 405 to every attempt to accept, reject or edit over HTTP', async () => {
      const f = await fixture();
      const staged = await post(f, { content: { x: 1 } });
      const base = `/documents/${f.documentId}/external-revisions/${staged.body.revisionId}`;
      const attempts: Array<[string, string]> = [];
      for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
        for (const path of [base, `${base}/accept`, `${base}/reject`, `${base}/decision`]) {
          attempts.push([method, path]);
        }
      }
      for (const [method, path] of attempts) {
        const res = await call(t.baseUrl, method, path, {
          auth: f.caller.auth,
          body: { status: 'accepted', decided_by: 'me' },
        });
        // the revision's own path is known (GET): another method there is 405, not a decision
        const known = path === base;
        withMessage(`${method} ${path}`, () => expect(res.status).toBe(known ? 405 : 404));
        expect(res.body.code).toBe(known ? 'method_not_allowed' : 'not_found');
        if (known) expect(res.headers.get('allow')).toBe('GET, HEAD');
      }
      expect((await revisionRows(t.app, f.documentId)).map((r) => r.status)).toEqual(['staged']);
    });
  });
});
