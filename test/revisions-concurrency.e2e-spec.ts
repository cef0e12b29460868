import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import type { ApiResponse } from './support/http.js';
import {
  createRevisionFixture,
  currentHash,
  eventsOf,
  type RevisionFixture,
  revisionRows,
  stage,
} from './support/revision-factories.js';

describe('candidate revisions under concurrency', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function rowCount(documentId: number): Promise<number> {
    const rows: Array<{ n: number }> = await t.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM external_revisions WHERE document_id = $1', [
        documentId,
      ]);
    return rows[0]!.n;
  }

  /** Waits (bounded) until `n` candidates of the document are committed. */
  async function untilRows(documentId: number, n: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await rowCount(documentId)) < n) {
      if (Date.now() > deadline) throw new Error(`fewer than ${n} candidates after 10 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /**
   * 20 parallel stagings while a pre-staged candidate is accepted part-way through: returns the
   * responses and the version ids before and after the accept.
   */
  async function raceAgainstAccept(
    f: RevisionFixture,
    headers: () => Record<string, string>,
  ): Promise<{ responses: ApiResponse[]; v1: number; v2: number; acceptedId: number }> {
    const chosen = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { chosen: 1 } });
    expect(chosen.status).toBe(201);
    const requests = Array.from({ length: 20 }, (_, i) =>
      stage(t.baseUrl, f.caller.auth, f.documentId, { content: { i } }, headers()),
    );
    // accept once some stagings have committed, while the rest are still in flight
    await untilRows(f.documentId, 4);
    const accepted = await t.app
      .get(RevisionDecisionService)
      .accept(chosen.body.revisionId, 'jane@acme');
    const responses = await Promise.all(requests);
    return {
      responses,
      v1: f.versionIds[0]!,
      v2: accepted.resulting_version_id!,
      acceptedId: chosen.body.revisionId,
    };
  }

  it('20 stagings with If-Match of the current version while a version is accepted: each 201 was staged against the version current at its commit, none lost', async () => {
    let created = 0;
    let conflicts = 0;
    for (let round = 0; round < 3; round++) {
      const f = await createRevisionFixture(t.app);
      const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
      const { responses, v1, v2, acceptedId } = await raceAgainstAccept(f, () => ({
        'if-match': `"${hash}"`,
      }));

      const ok = responses.filter((r) => r.status === 201);
      const refused = responses.filter((r) => r.status !== 201);
      created += ok.length;
      conflicts += refused.length;
      for (const r of refused) {
        expect(r.status).toBe(400);
        expect(r.body.code).toBe('version_conflict');
      }
      // If-Match named v1, so a 201 means v1 was current when it committed: it committed before
      // the accept, and the accept (which saw every committed candidate) superseded it
      expect(ok.length).toBeGreaterThanOrEqual(3);
      const rows = await revisionRows(t.app, f.documentId);
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const r of ok) {
        expect(r.body.base_version_id).toBe(v1);
        expect(byId.get(r.body.revisionId)?.status).toBe('superseded');
      }
      // none lost, none extra: the accepted candidate plus exactly the 201s
      expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(
        [acceptedId, ...ok.map((r) => r.body.revisionId as number)].sort((a, b) => a - b),
      );
      expect(rows.filter((r) => r.status === 'staged')).toEqual([]);
      expect(byId.get(acceptedId)).toMatchObject({ status: 'accepted', resulting_version_id: v2 });
      const superseded = await eventsOf(t.app, f.caller.tenantId, 'external_revision.superseded');
      expect(superseded).toHaveLength(ok.length);
    }
    expect(created + conflicts).toBe(60);
  });

  it('20 stagings without a precondition while a version is accepted: the base is the version current at commit', async () => {
    const f = await createRevisionFixture(t.app);
    const { responses, v1, v2, acceptedId } = await raceAgainstAccept(f, () => ({}));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const rows = await revisionRows(t.app, f.documentId);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const r of responses) {
      const row = byId.get(r.body.revisionId)!;
      expect(row.base_version_id).toBe(r.body.base_version_id);
      // before the accept: on v1 and superseded by it; after: on v2 and still staged
      if (r.body.base_version_id === v1) expect(row.status).toBe('superseded');
      else {
        expect(r.body.base_version_id).toBe(v2);
        expect(row.status).toBe('staged');
      }
    }
    expect(rows).toHaveLength(21);
    expect(byId.get(acceptedId)?.status).toBe('accepted');
  });

  it('parallel requests with one Idempotency-Key produce exactly one candidate', async () => {
    const f = await createRevisionFixture(t.app);
    const same = Array.from({ length: 10 }, () =>
      stage(
        t.baseUrl,
        f.caller.auth,
        f.documentId,
        { content: { a: 1 } },
        {
          'idempotency-key': 'same-key',
        },
      ),
    );
    const responses = await Promise.all(same);
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(responses.map((r) => r.body.revisionId)).size).toBe(1);
    expect(new Set(responses.map((r) => r.headers.get('location'))).size).toBe(1);
    expect(await rowCount(f.documentId)).toBe(1);
    expect(await eventsOf(t.app, f.caller.tenantId, 'external_revision.staged')).toHaveLength(1);
  });

  it('parallel requests with one key and two bodies: one candidate, the other body gets 409', async () => {
    const f = await createRevisionFixture(t.app);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        stage(
          t.baseUrl,
          f.caller.auth,
          f.documentId,
          { content: { body: i % 2 } },
          {
            'idempotency-key': 'contested',
          },
        ),
      ),
    );
    const ok = responses.filter((r) => r.status === 201);
    const reused = responses.filter((r) => r.status === 409);
    expect(ok.length + reused.length).toBe(10);
    expect(new Set(ok.map((r) => r.body.revisionId)).size).toBe(1);
    for (const r of reused) expect(r.body.code).toBe('idempotency_key_reused');
    expect(await rowCount(f.documentId)).toBe(1);
  });
});
