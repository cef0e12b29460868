import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { PreparedStatements } from '../src/common/database/prepared-statements.js';
import { batchOf, sql, type Sql } from '../src/common/database/statement.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { HeldText, holdColumns } from '../src/common/http/json-text.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { createTenant } from './support/factories.js';

type Rows = Array<Record<string, unknown>>;

/** Sends compiled calls the way TenantTransactions does; answers each statement's rows. */
async function send(
  client: pg.Client,
  prepared: PreparedStatements,
  calls: Sql[],
): Promise<{ prepares: number; rows: Rows[] }> {
  const compiled = await prepared.compile(client, calls);
  try {
    const text = [...compiled.prepares, ...compiled.executes].join('; ');
    const raw = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
    const results = Array.isArray(raw) ? raw : [raw];
    prepared.confirm(client, compiled);
    return {
      prepares: compiled.prepares.length,
      rows: results.slice(compiled.prepares.length).map((r) => r.rows as Rows),
    };
  } catch (err) {
    await prepared.failed(client, compiled);
    throw err;
  }
}

async function serverSideNames(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT name FROM pg_prepared_statements ORDER BY name`,
  );
  return rows.map((r) => r.name);
}

// session mode on PostgreSQL itself, whatever pooler the run goes through: what is prepared
// lives in the server session (test/pool-modes.e2e-spec.ts covers transaction mode)
describe('prepared statements', () => {
  let t: TestApp;
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestApp(
      { DATABASE_URL: database.directUrl, DATABASE_POOL_MODE: 'session', DATABASE_LISTEN_URL: '' },
      database,
    );
    client = new pg.Client({ connectionString: database.directUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await t.close();
    await database.drop();
  });

  describe('PreparedStatements (simple query protocol)', () => {
    it('prepares a statement once per connection and executes it by name afterwards', async () => {
      const prepared = new PreparedStatements();
      const call = (a: number, b: number) => sql`SELECT ${a}::int + ${b}::int AS sum`;
      const first = await send(client, prepared, [call(2, 3)]);
      expect(first.prepares).toBe(1);
      expect(first.rows[0]).toEqual([{ sum: 5 }]);
      const second = await send(client, prepared, [call(40, 2)]);
      expect(second.prepares).toBe(0);
      expect(second.rows[0]).toEqual([{ sum: 42 }]);
      expect((await serverSideNames(client)).filter((n) => n.startsWith('grc_s_'))).toHaveLength(1);
    });

    it('sends a composed statement with the parameters of its parts, in order', async () => {
      const prepared = new PreparedStatements();
      const inner = (a: number) => sql`SELECT ${a}::int AS a`;
      const outer = (b: number, a: number) =>
        sql`SELECT ${b}::int AS b, i.a, ${b}::int AS b2 FROM (${inner(a)}) i`;
      const { rows } = await send(client, prepared, [outer(40, 30)]);
      expect(rows[0]).toEqual([{ b: 40, a: 30, b2: 40 }]);
      // the same text with other values is the same prepared statement
      const again = await send(client, prepared, [outer(4, 3)]);
      expect(again.prepares).toBe(0);
      expect(again.rows[0]).toEqual([{ b: 4, a: 3, b2: 4 }]);
    });

    it('inlines validated integers only', async () => {
      const prepared = new PreparedStatements();
      await expect(prepared.compile(client, [sql`SELECT ${1.5}::int AS x`])).rejects.toThrow(
        /must be an integer/,
      );
      await expect(
        prepared.compile(client, [sql`SELECT ${'1; DROP TABLE projects'}::int AS x`]),
      ).rejects.toThrow(/must be an integer/);
    });

    it('after a failed round trip, knows which of its PREPAREs ran and reuses them', async () => {
      const fresh = new pg.Client({ connectionString: database.directUrl });
      await fresh.connect();
      try {
        const prepared = new PreparedStatements();
        const good = sql`SELECT ${21}::int * 2 AS twice`;
        const bad = sql`SELECT * FROM no_such_table WHERE id = ${1}`;
        // the good PREPARE runs, the bad one fails: the round trip fails as a whole
        await expect(send(fresh, prepared, [good, bad])).rejects.toThrow(/no_such_table/);
        // without the resync, the next use would PREPARE the good statement again and fail
        const again = await send(fresh, prepared, [good]);
        expect(again.prepares).toBe(0);
        expect(again.rows[0]).toEqual([{ twice: 42 }]);
      } finally {
        await fresh.end();
      }
    });
  });

  describe('TenantTransactions', () => {
    it('opens a tenant transaction with prepared statements, under row-level security', async () => {
      const a = await createTenant(t.app);
      const b = await createTenant(t.app);
      await t.app
        .get(DataSource)
        .query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'prep-a'), ($2, 'prep-b')`, [
          a,
          b,
        ]);
      const tx = t.app.get(TenantTransactions);
      const statement = sql`SELECT name FROM projects WHERE id >= ${0} AND name LIKE 'prep-%' ORDER BY name`;
      const names = (tenantId: number) =>
        tx.runOpening(
          tenantId,
          batchOf(statement, (rows) => rows),
          async (rows) => ({
            rows,
            prepared: await tx.manager.query<Rows>(
              `SELECT name FROM pg_prepared_statements WHERE name LIKE 'grc_s_%'`,
            ),
          }),
        );
      const seenByA = await names(a);
      expect(seenByA.rows).toEqual([{ name: 'prep-a' }]);
      // the tenant pin and the opening read, at least, are prepared on this connection
      expect(seenByA.prepared.length).toBeGreaterThanOrEqual(2);
      // the same prepared plan, run for another tenant, sees only that tenant's rows
      for (let i = 0; i < 8; i++) {
        expect((await names(b)).rows).toEqual([{ name: 'prep-b' }]);
        expect((await names(a)).rows).toEqual([{ name: 'prep-a' }]);
      }
    });

    it('query() runs a named statement on the transaction’s own connection', async () => {
      const a = await createTenant(t.app);
      const tx = t.app.get(TenantTransactions);
      const seen = await tx.run(a, async () => {
        const rows = await tx.query(
          sql<{
            tenant: string;
          }>`SELECT current_setting('app.tenant_id') AS tenant WHERE ${1}::int = 1`,
        );
        const named = await tx.manager.query<Rows>(
          `SELECT name FROM pg_prepared_statements WHERE name LIKE 'grc_x_%'`,
        );
        return { rows, named: named.length };
      });
      expect(seen.rows).toEqual([{ tenant: String(a) }]);
      expect(seen.named).toBeGreaterThanOrEqual(1);
    });

    it('readOnce answers held texts only where a hold was given, and its types say which', async () => {
      const a = await createTenant(t.app);
      const tx = t.app.get(TenantTransactions);
      const row = sql<{ doc: string; n: number }>`SELECT 'text' AS doc, ${7}::int AS n`;
      const [plain] = await tx.readOnce(a, row);
      const [held] = await tx.readOnce(a, row, holdColumns(['doc'] as const));
      const inside = await tx.run(a, () => tx.readOnce(a, row, holdColumns(['doc'] as const)));
      expect(plain).toEqual({ doc: 'text', n: 7 });
      expect(held!.doc).toBeInstanceOf(HeldText);
      expect([held!.doc.text, held!.n]).toEqual(['text', 7]);
      expect(inside[0]!.doc.text).toBe('text');
      // @ts-expect-error a held text is not a string
      const asText: string = held!.doc;
      // @ts-expect-error a read without a hold has no held text
      const asHeld: HeldText = plain!.doc;
      // @ts-expect-error a statement's row never claims a held text: only a hold makes one
      const claimed = await tx.readOnce(a, sql<{ doc: HeldText }>`SELECT 'text' AS doc`);
      // @ts-expect-error a hold names its columns by literal types, not any string
      holdColumns(['doc'] as string[]);
      expect([typeof asText, typeof asHeld, typeof claimed[0]!.doc]).toEqual([
        'object',
        'string',
        'string',
      ]);
    });
  });
});
