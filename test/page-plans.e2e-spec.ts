import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { PageReads } from '../src/common/database/page-reads.js';
import { APP_ROLE } from '../src/common/database/schema-constants.js';
import type { Statement } from '../src/common/database/statement.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { createProject } from './support/read-factories.js';

/** Children of the big parent: the table's statistics then say most rows have that parent. */
const BIG = 3000;
const SMALL = 2;

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows of `table` the plan read: those it returned and those it read and threw away. */
function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
}

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
    for (const [tenantId, projectId, count] of [
      [big.tenantId, bigProject, BIG],
      [small.tenantId, smallProject, SMALL],
    ] as const) {
      await admin.query(
        `INSERT INTO documents (tenant_id, project_id, title)
         SELECT $1, $2, 'Document ' || n FROM generate_series(1, $3::int) n`,
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
    await admin.query('ANALYZE documents, project_files');
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
  ): Promise<PlanNode> {
    const name = `page_plan_${mode}`;
    const args = (s: Statement) => s.values.map((v) => String(Number(v))).join(', ');
    await admin.query('BEGIN');
    try {
      await admin.query(`SET LOCAL ROLE ${APP_ROLE}`);
      await admin.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await admin.query(`PREPARE ${name} AS ${bigStatement.text}`);
      await admin.query(`SELECT set_config('app.tenant_id', $1, true)`, [String(big.tenantId)]);
      for (let i = 0; i < 8; i++) await admin.query(`EXECUTE ${name}(${args(bigStatement)})`);
      await admin.query(`SELECT set_config('app.tenant_id', $1, true)`, [String(small.tenantId)]);
      const { rows } = await admin.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${args(smallStatement)})`,
      );
      return rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await admin.query('ROLLBACK');
      await admin.query(`DEALLOCATE ${name}`);
    }
  }

  it.each([
    ['documents', 'documents'],
    ['files', 'project_files'],
  ])(
    "a small project's %s page reads its own rows, whatever plan the big project's pages left",
    async (list, table) => {
      const bigPage = await pageStatement(`/projects/${bigProject}/${list}`, big);
      const smallPage = await pageStatement(`/projects/${smallProject}/${list}`, small);
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
});
