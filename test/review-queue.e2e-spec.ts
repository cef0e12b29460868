import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import jsonPatch, { type Operation } from 'fast-json-patch';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { PLATFORM_ROLE } from '../src/common/database/schema-constants.js';
import type { Sql } from '../src/common/database/statement.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { AuditService } from '../src/modules/audit/audit.service.js';
import type { ReviewQueueItemResponse } from '../src/modules/revisions/platform/dto/review.response.js';
import { ReviewQueueService } from '../src/modules/revisions/review-queue.service.js';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import type { RevisionStatus } from '../src/modules/revisions/revision-status.js';
import { startTestApp, type TestApp } from './support/app.js';
import {
  createPlatformVersion,
  createRevisionFixture,
  eventsOf,
  type RevisionFixture,
  revisionRows,
  stage,
} from './support/revision-factories.js';

/** The review queue's services, as the platform API's routes call them. */
describe('review queue (services)', () => {
  let t: TestApp;
  let queue: ReviewQueueService;

  beforeAll(async () => {
    t = await startTestApp();
    queue = t.app.get(ReviewQueueService);
  });
  afterAll(async () => {
    await t.close();
  });

  async function staged(f: RevisionFixture, content: Record<string, unknown>): Promise<number> {
    const res = await stage(t.baseUrl, f.caller.auth, f.documentId, { content });
    expect(res.status).toBe(201);
    return res.body.revisionId as number;
  }

  async function page(
    filter: { status?: RevisionStatus; tenantId?: number; documentId?: number },
    limit = 100,
    cursor?: string,
  ): Promise<{ data: ReviewQueueItemResponse[]; next_cursor: string | null }> {
    const list = await queue.list({ status: 'staged', ...filter }, { limit, cursor });
    return list.value();
  }

  /** Every page of a filter, walked by cursor. */
  async function walk(
    filter: { status?: RevisionStatus; tenantId?: number; documentId?: number },
    limit: number,
  ): Promise<ReviewQueueItemResponse[]> {
    const items: ReviewQueueItemResponse[] = [];
    let cursor: string | undefined;
    for (;;) {
      const p = await page(filter, limit, cursor);
      expect(p.data.length).toBeLessThanOrEqual(limit);
      items.push(...p.data);
      if (!p.next_cursor) return items;
      cursor = p.next_cursor;
    }
  }

  it("lists every tenant's staged candidates oldest first, each with its tenant, page by page", async () => {
    const a = await createRevisionFixture(t.app);
    const b = await createRevisionFixture(t.app);
    const ids = [
      await staged(a, { n: 1 }),
      await staged(b, { n: 2 }),
      await staged(a, { n: 3 }),
      await staged(b, { n: 4 }),
      await staged(a, { n: 5 }),
    ];
    const all = await walk({}, 2);
    const mine = all.filter((i) => ids.includes(i.revisionId));
    expect(mine.map((i) => i.revisionId)).toEqual(ids);
    expect(all.map((i) => i.revisionId)).toEqual(
      [...all.map((i) => i.revisionId)].sort((x, y) => x - y),
    );
    expect(mine.map((i) => i.tenant_id)).toEqual([
      a.caller.tenantId,
      b.caller.tenantId,
      a.caller.tenantId,
      b.caller.tenantId,
      a.caller.tenantId,
    ]);
    expect(mine[0]).toEqual({
      tenant_id: a.caller.tenantId,
      revisionId: ids[0],
      documentId: a.documentId,
      base_version_id: a.versionIds[0],
      status: 'staged',
      content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      source_reference: null,
      created_at: expect.stringMatching(/Z$/),
      decided_at: null,
      decided_by: null,
      resulting_version_id: null,
      decision_note: null,
    });

    // one tenant, one document: the same walk narrowed
    expect((await walk({ tenantId: b.caller.tenantId }, 1)).map((i) => i.revisionId)).toEqual([
      ids[1],
      ids[3],
    ]);
    expect((await walk({ documentId: a.documentId }, 2)).map((i) => i.revisionId)).toEqual([
      ids[0],
      ids[2],
      ids[4],
    ]);
    // a document of another tenant than the filter's: nothing
    expect(await page({ tenantId: b.caller.tenantId, documentId: a.documentId })).toEqual({
      data: [],
      next_cursor: null,
    });
  });

  it("reads as the platform's read-only role, never as the owner", async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { role: 'platform' });
    const tx = t.app.get(TenantTransactions);
    const across = jest.spyOn(tx, 'readAcrossTenants');
    const system = jest.spyOn(tx, 'runAsSystem');
    try {
      await queue.list({ status: 'staged' }, { limit: 1 });
      await queue.get(id);
      expect(across).toHaveBeenCalledTimes(2);
      expect(system).not.toHaveBeenCalled();
    } finally {
      across.mockRestore();
      system.mockRestore();
    }
  });

  it('lists by status and refuses a cursor of another filter', async () => {
    const f = await createRevisionFixture(t.app);
    const r1 = await staged(f, { s: 1 });
    await queue.reject(r1, 'rita', 'no');
    const r2 = await staged(f, { s: 2 });
    expect((await page({ documentId: f.documentId })).data.map((i) => i.revisionId)).toEqual([r2]);
    const rejected = await page({ documentId: f.documentId, status: 'rejected' });
    expect(rejected.data).toEqual([
      expect.objectContaining({
        revisionId: r1,
        status: 'rejected',
        decided_by: 'rita',
        decision_note: 'no',
      }),
    ]);

    await staged(f, { s: 3 });
    const first = await page({ documentId: f.documentId }, 1);
    expect(first.next_cursor).toEqual(expect.any(String));
    for (const other of [
      {},
      { documentId: f.documentId, status: 'rejected' as const },
      { tenantId: f.caller.tenantId },
    ]) {
      await expect(
        queue.list({ status: 'staged', ...other }, { limit: 1, cursor: first.next_cursor! }),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    }
    await expect(
      queue.list({ status: 'staged' }, { limit: 1, cursor: 'bm90IGEgY3Vyc29y' }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('shows a candidate with its base and the RFC 6902 diff from base to candidate', async () => {
    const f = await createRevisionFixture(t.app);
    const base = { title: 'Policy', sections: [{ h: 'Scope', b: 'All staff.' }], 'a/b': 1 };
    const version = await createPlatformVersion(t.app, f.caller.tenantId, f.documentId, base);
    const candidate = { title: 'Policy', sections: [{ h: 'Scope', b: 'Everyone.' }, { h: 'New' }] };
    const id = await staged(f, candidate);
    const review = await queue.get(id);
    expect(review).toMatchObject({
      tenant_id: f.caller.tenantId,
      revisionId: id,
      documentId: f.documentId,
      status: 'staged',
      base_version_id: version,
      base: { versionId: version, content: base },
      candidate: { content: candidate, html: null },
      current_version_id: version,
      diff_to_current: null,
    });
    expect(review.diff).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: '/a~1b' },
        { op: 'replace', path: '/sections/0/b', value: 'Everyone.' },
        { op: 'add', path: '/sections/1', value: { h: 'New' } },
      ]),
    );
    expect(review.diff).toHaveLength(3);
    expect(
      jsonPatch.applyPatch(structuredClone(base), review.diff as Operation[], true, false)
        .newDocument,
    ).toEqual(candidate);
    await expect(queue.get(2_000_000_000)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('shows a superseded candidate with the diff from the current version', async () => {
    const f = await createRevisionFixture(t.app);
    const id = await staged(f, { title: 'T', body: 'candidate', extra: [1, 2] });
    const current = { title: 'T2', body: 'candidate' };
    const now = await createPlatformVersion(t.app, f.caller.tenantId, f.documentId, current);
    const review = await queue.get(id);
    expect(review.status).toBe('superseded');
    expect(review.current_version_id).toBe(now);
    expect(review.base.versionId).toBe(f.versionIds[0]);
    expect(review.diff_to_current).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/title', value: 'T' },
        { op: 'add', path: '/extra', value: [1, 2] },
      ]),
    );
    expect(review.diff_to_current).toHaveLength(2);
    expect(
      jsonPatch.applyPatch(
        structuredClone(current),
        review.diff_to_current as Operation[],
        true,
        false,
      ).newDocument,
    ).toEqual(review.candidate.content);
  });

  it('accepts through the decision service: decided_by, note, events and supersession as the CLI', async () => {
    const f = await createRevisionFixture(t.app);
    const first = await staged(f, { pick: 1 });
    const second = await staged(f, { pick: 2 });
    const decided = await queue.accept(first, 'jane@acme', 'approved in review');
    expect(decided).toEqual({
      revisionId: first,
      tenant_id: f.caller.tenantId,
      status: 'accepted',
      resulting_version_id: expect.any(Number),
    });
    const rows = await revisionRows(t.app, f.documentId);
    expect(rows[0]).toMatchObject({
      status: 'accepted',
      decided_by: 'jane@acme',
      decision_note: 'approved in review',
      resulting_version_id: decided.resulting_version_id,
    });
    // the other candidate was on the old base: superseded by the accept's version
    expect(rows[1]).toMatchObject({ id: second, status: 'superseded', decided_by: null });
    const types = (await eventsOf(t.app, f.caller.tenantId)).map((e) => e.type);
    expect(types.slice(-3)).toEqual([
      'document.version_created',
      'external_revision.superseded',
      'external_revision.accepted',
    ]);

    // decided or superseded: 409 revision_not_staged, nothing changes
    await expect(queue.accept(first, 'jane', undefined)).rejects.toMatchObject({
      code: 'revision_not_staged',
    });
    await expect(queue.reject(first, 'jane', undefined)).rejects.toMatchObject({
      code: 'revision_not_staged',
    });
    await expect(queue.accept(second, 'jane', undefined)).rejects.toMatchObject({
      code: 'revision_not_staged',
    });
    await expect(queue.accept(2_000_000_000, 'jane', undefined)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await revisionRows(t.app, f.documentId)).map((r) => r.status)).toEqual([
      'accepted',
      'superseded',
    ]);
  });

  it('tells the caller the tenant and leaves the audit line to it; the CLI path still writes one', async () => {
    const f = await createRevisionFixture(t.app);
    const viaQueue = await staged(f, { via: 'queue' });
    const tenants: number[] = [];
    await queue.reject(viaQueue, 'rita', undefined, (tenantId) => tenants.push(tenantId));
    expect(tenants).toEqual([f.caller.tenantId]);
    const viaCli = await staged(f, { via: 'cli' });
    await t.app.get(RevisionDecisionService).reject(viaCli, 'rita');
    await t.app.get(AuditService).drain();
    const lines: Array<{ target: string; actor: string }> = await t.app
      .get(DataSource)
      .query(`SELECT target, actor FROM audit_log WHERE action = 'revision.reject' ORDER BY id`);
    expect(lines).toEqual([{ target: `revision:${viaCli}`, actor: 'rita' }]);
  });
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows of external_revisions the plan read: those it returned and those it threw away. */
function revisionRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'external_revisions'
      ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + revisionRowsRead(child), 0);
}

/** Decided candidates of one tenant, all older than the queue's: what a page must not wade through. */
const DECIDED = 3000;
const LIMIT = 10;

describe('review queue pages on their indexes', () => {
  let t: TestApp;
  let admin: pg.Client;
  let busy: RevisionFixture;
  let quiet: RevisionFixture;

  beforeAll(async () => {
    t = await startTestApp();
    admin = new pg.Client({ connectionString: t.database.directUrl });
    await admin.connect();
    busy = await createRevisionFixture(t.app);
    quiet = await createRevisionFixture(t.app);
    const bulk = (f: RevisionFixture, status: string, count: number) =>
      admin.query(
        `INSERT INTO external_revisions (tenant_id, document_id, base_version_id, status, content,
                                         content_hash, credential_ref)
         SELECT $1, $2, $3, $4, '{}', repeat('0', 64), 'bulk' FROM generate_series(1, $5::int)`,
        [f.caller.tenantId, f.documentId, f.versionIds[0], status, count],
      );
    // the busy tenant: many decided candidates, then many staged ones; the quiet one: a few staged
    await bulk(busy, 'accepted', DECIDED);
    await bulk(busy, 'staged', DECIDED);
    await bulk(quiet, 'staged', 3);
    await admin.query('ANALYZE external_revisions');
  }, 60_000);

  afterAll(async () => {
    await admin.end();
    await t.close();
  });

  /** The statement the queue reads a page of `filter` with. */
  async function pageStatement(filter: {
    status: RevisionStatus;
    tenantId?: number;
  }): Promise<Sql> {
    const tx = t.app.get(TenantTransactions);
    const spy = jest.spyOn(tx, 'query');
    try {
      await t.app.get(ReviewQueueService).list(filter, { limit: LIMIT });
      const call = spy.mock.calls.find(([s]) => s.text.includes('FROM external_revisions x'));
      if (!call) throw new Error('the queue read no page');
      return call[0];
    } finally {
      spy.mockRestore();
    }
  }

  /** `statement` prepared as a pooled connection prepares it, EXPLAINed in `mode`. */
  async function plan(statement: Sql, mode: string): Promise<PlanNode> {
    // the test's own constants: integers and a status name
    const args = statement.values
      .map((v) => (typeof v === 'number' ? String(v) : `'${String(v)}'`))
      .join(', ');
    await admin.query('BEGIN');
    try {
      // as the service reads it: read only, as the platform's role (its policies apply)
      await admin.query(`SET TRANSACTION READ ONLY`);
      await admin.query(`SET LOCAL ROLE ${PLATFORM_ROLE}`);
      await admin.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await admin.query(`PREPARE queue_page AS ${statement.text}`);
      for (let i = 0; i < 6; i++) await admin.query(`EXECUTE queue_page(${args})`);
      const { rows } = await admin.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE queue_page(${args})`,
      );
      return rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await admin.query('ROLLBACK');
      await admin.query('DEALLOCATE ALL');
    }
  }

  it.each(['auto', 'force_generic_plan'])(
    'a page reads about its own rows, not the decided ones before it or another tenant’s (%s)',
    async (mode) => {
      const across = await plan(await pageStatement({ status: 'staged' }), mode);
      expect(revisionRowsRead(across)).toBeLessThanOrEqual(LIMIT + 2);
      const oneTenant = await plan(
        await pageStatement({ status: 'staged', tenantId: quiet.caller.tenantId }),
        mode,
      );
      expect(revisionRowsRead(oneTenant)).toBeLessThanOrEqual(LIMIT + 2);
    },
  );
});
