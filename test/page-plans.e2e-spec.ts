import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { PageReads } from '../src/common/database/page-reads.js';
import { APP_ROLE } from '../src/common/database/schema-constants.js';
import { inlinedInteger, type Statement } from '../src/common/database/statement.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { createDocument, createProject } from './support/read-factories.js';

/** Children of the big parent: the table's statistics then say most rows have that parent. */
const BIG = 3000;
const SMALL = 2;

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The sum of `count` over the plan's nodes that scan `table`. */
function overScans(node: PlanNode, table: string, count: (scan: PlanNode) => number): number {
  const own = node['Relation Name'] === table ? count(node) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + overScans(child, table, count), 0);
}

/** Rows of `table` the plan read: those it returned and those it read and threw away. */
const rowsRead = (plan: PlanNode, table: string): number =>
  overScans(
    plan,
    table,
    (scan) =>
      ((scan['Actual Rows'] ?? 0) +
        (scan['Rows Removed by Filter'] ?? 0) +
        (scan['Rows Removed by Index Recheck'] ?? 0)) *
      (scan['Actual Loops'] ?? 1),
  );

/** Blocks the plan's scans of `table` touched (index and heap). */
const blocksRead = (plan: PlanNode, table: string): number =>
  overScans(
    plan,
    table,
    (scan) => (scan['Shared Hit Blocks'] ?? 0) + (scan['Shared Read Blocks'] ?? 0),
  );

const PLAN_MODES = ['auto', 'force_generic_plan', 'force_custom_plan'] as const;

// One tenant's big parent must not slow another tenant's page of a small parent: a statement is
// prepared once per pooled connection and PostgreSQL may plan it once for every parameter; that
// plan is the one the small parent's page then runs.
describe('child pages of a small parent beside a big one', () => {
  let t: TestApp;
  let database: TestDatabase;
  let admin: pg.Client;
  let big: TestCaller;
  let small: TestCaller;
  let bigProject: number;
  let smallProject: number;
  let bigDocument: number;
  let smallDocument: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestApp(
      { DATABASE_URL: database.directUrl, DATABASE_POOL_MODE: 'session', DATABASE_LISTEN_URL: '' },
      database,
    );
    admin = new pg.Client({ connectionString: database.directUrl });
    await admin.connect();
    big = await createCaller(t.app);
    small = await createCaller(t.app);
    bigProject = await createProject(t.app, big.tenantId);
    smallProject = await createProject(t.app, small.tenantId);
    bigDocument = (await createDocument(t.app, big.tenantId, bigProject)).documentId;
    smallDocument = (await createDocument(t.app, small.tenantId, smallProject)).documentId;
    for (const [tenantId, projectId, documentId, count] of [
      [big.tenantId, bigProject, bigDocument, BIG],
      [small.tenantId, smallProject, smallDocument, SMALL],
    ] as const) {
      await admin.query(
        `INSERT INTO external_revisions (tenant_id, document_id, base_version_id, status, content,
                                         content_hash, credential_ref)
         SELECT $1, $2, d.current_version_id, 'rejected', '{}', repeat('0', 64), 'bulk'
           FROM documents d CROSS JOIN generate_series(1, $3::int) n WHERE d.id = $2`,
        [tenantId, documentId, count],
      );
      await admin.query(
        `INSERT INTO documents (tenant_id, project_id, title)
         SELECT $1, $2, 'Document ' || n FROM generate_series(1, $3::int - 1) n`,
        [tenantId, projectId, count],
      );
      await admin.query(
        `INSERT INTO project_files (tenant_id, project_id, name, media_type, size_bytes,
                                    storage_location)
         SELECT $1, $2, 'file-' || n || '.pdf', 'application/pdf', n, 'bulk'
           FROM generate_series(1, $3::int) n`,
        [tenantId, projectId, count],
      );
    }
    await admin.query('ANALYZE documents, project_files, external_revisions');
  }, 60_000);

  afterAll(async () => {
    await admin.end();
    await t.close();
  });

  /** The statement the service reads `path`'s page with, for `caller`, and the page it answered. */
  async function pageStatement(
    path: string,
    caller: TestCaller,
  ): Promise<{ statement: Statement; items: number }> {
    const reads = t.app.get(PageReads, { strict: false });
    const spy = jest.spyOn(reads, 'read');
    try {
      const res = await fetch(`${t.baseUrl}/api/v1${path}`, {
        headers: { authorization: caller.auth },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: unknown[] };
      expect(spy).toHaveBeenCalledTimes(1);
      const statement = spy.mock.calls[0]![2] as Statement;
      return { statement, items: body.data.length };
    } finally {
      spy.mockRestore();
    }
  }

  /**
   * `statement` prepared as the service prepares it, run for the big parent as many times as
   * PostgreSQL needs to settle on a plan, then EXPLAINed for the small parent.
   */
  async function smallPageAfterBig(
    bigStatement: Statement,
    smallStatement: Statement,
    mode: (typeof PLAN_MODES)[number],
    explainedFor: TestCaller = small,
  ): Promise<PlanNode> {
    const name = `page_plan_${mode}`;
    // the arguments as the service inlines them into its EXECUTE (PreparedStatements)
    const args = (s: Statement) => s.values.map((v, i) => inlinedInteger(v, i + 1)).join(', ');
    await admin.query('BEGIN');
    try {
      await admin.query(`SET LOCAL ROLE ${APP_ROLE}`);
      await admin.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await admin.query(`PREPARE ${name} AS ${bigStatement.text}`);
      await admin.query(`SELECT set_config('app.tenant_id', $1, true)`, [String(big.tenantId)]);
      for (let i = 0; i < 8; i++) await admin.query(`EXECUTE ${name}(${args(bigStatement)})`);
      await admin.query(`SELECT set_config('app.tenant_id', $1, true)`, [
        String(explainedFor.tenantId),
      ]);
      const { rows } = await admin.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE ${name}(${args(smallStatement)})`,
      );
      return rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await admin.query('ROLLBACK');
      // ALL: a PREPARE that failed must leave its own error, not one for a missing name
      await admin.query('DEALLOCATE ALL');
    }
  }

  const LISTS = [
    [
      'documents',
      'documents',
      (big: boolean) => `/projects/${big ? bigProject : smallProject}/documents`,
    ],
    [
      'files',
      'project_files',
      (big: boolean) => `/projects/${big ? bigProject : smallProject}/files`,
    ],
    [
      'candidates',
      'external_revisions',
      (big: boolean) => `/documents/${big ? bigDocument : smallDocument}/external-revisions`,
    ],
  ] as const;

  it.each(LISTS)(
    "a small parent's %s page reads its own rows, whatever plan the big parent's pages left",
    async (_list, table, path) => {
      const bigPage = await pageStatement(path(true), big);
      const smallPage = await pageStatement(path(false), small);
      expect(bigPage.items).toBe(1000);
      expect(smallPage.items).toBe(SMALL);
      expect(smallPage.statement.text).toBe(bigPage.statement.text);
      const overread: { mode: string; read: number }[] = [];
      for (const mode of PLAN_MODES) {
        const plan = await smallPageAfterBig(bigPage.statement, smallPage.statement, mode);
        const read = rowsRead(plan, table);
        expect(read).toBeGreaterThanOrEqual(SMALL);
        // its own rows, and at most the one past them that ends the range
        if (read > SMALL + 1) overread.push({ mode, read });
      }
      expect(overread).toEqual([]);
    },
    60_000,
  );

  it.each(LISTS)(
    "a cursor page deep in the big parent's %s starts at its cursor, not at the parent's first row",
    async (_list, table, path) => {
      // a page of 10 after the first BIG - 20 children, reached by walking the list
      let cursor = '';
      for (const limit of [1000, 1000, BIG - 2020]) {
        const res = await fetch(
          `${t.baseUrl}/api/v1${path(true)}?limit=${limit}${cursor && `&cursor=${cursor}`}`,
          { headers: { authorization: big.auth } },
        );
        cursor = ((await res.json()) as { next_cursor: string }).next_cursor;
      }
      const deep = await pageStatement(`${path(true)}?limit=10&cursor=${cursor}`, big);
      const head = await pageStatement(`${path(true)}?limit=10`, big);
      expect([deep.items, head.items]).toEqual([10, 10]);
      const overread: { mode: string; rows: number; blocks: number; firstPageBlocks: number }[] =
        [];
      for (const mode of PLAN_MODES) {
        const deepPlan = await smallPageAfterBig(head.statement, deep.statement, mode, big);
        const headPlan = await smallPageAfterBig(head.statement, head.statement, mode, big);
        const rows = rowsRead(deepPlan, table);
        const blocks = blocksRead(deepPlan, table);
        const firstPageBlocks = blocksRead(headPlan, table);
        expect(firstPageBlocks).toBeGreaterThan(0);
        // the first page's blocks, give or take a leaf: walking BIG - 20 index entries from the
        // parent's first would touch every leaf they fill
        if (rows > 11 || blocks > firstPageBlocks + 2) {
          overread.push({ mode, rows, blocks, firstPageBlocks });
        }
      }
      expect(overread).toEqual([]);
    },
    60_000,
  );
});
