import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { sql } from '../src/common/database/statement.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTenant } from './support/factories.js';

const insertProject = (tenantId: number, name: string) =>
  sql<{
    name: string;
  }>`INSERT INTO projects (tenant_id, name) VALUES (${tenantId}, ${name}) RETURNING name`;
const INSERT_PROJECT = insertProject(0, '').text;
const fails = (divisor: number) => sql`SELECT 1 / ${divisor}::int AS never`;
const one = sql`SELECT 1 WHERE ${1}::int = 1`;

interface Sent {
  text: string;
  /** How many earlier queries had been answered when this one was sent. */
  answeredBefore: number;
}

/** Records every query any pg client sends, until `restore`. */
function recordQueries(): { sent: Sent[]; restore: () => void } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const sent: Sent[] = [];
  let answered = 0;
  proto.query = function (this: unknown, ...args: unknown[]): unknown {
    const config = args[0];
    const text = typeof config === 'string' ? config : (config as { text: string }).text;
    sent.push({ text, answeredBefore: answered });
    const result = original.apply(this, args);
    if (result instanceof Promise) {
      void result.then(
        () => answered++,
        () => answered++,
      );
    }
    return result;
  };
  return { sent, restore: () => (proto.query = original) };
}

/**
 * `TenantTransactions.queryAndCommit`: a transaction's last statement and its COMMIT in one round
 * trip (the connection pipelines). What must hold: the COMMIT is really sent before the
 * statement's answer, nothing is acknowledged before the COMMIT is, a failing statement commits
 * nothing, and a run that joined an outer transaction never ends it.
 */
describe('a last statement pipelined with its COMMIT', () => {
  let t: TestApp;
  let tx: TenantTransactions;
  let tenant: number;
  const projectsNamed = async (name: string): Promise<number> => {
    const rows = await t.app
      .get(DataSource)
      .query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM projects WHERE name = $1`, [
        name,
      ]);
    return rows[0]?.n ?? -1;
  };

  beforeAll(async () => {
    t = await startTestApp();
    tx = t.app.get(TenantTransactions);
    tenant = await createTenant(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends the COMMIT before the statement is answered, and resolves once it is committed', async () => {
    const { sent, restore } = recordQueries();
    const rows = await tx
      .run(tenant, () => tx.queryAndCommit(insertProject(tenant, 'pipelined-ok')))
      .finally(restore);

    expect(rows).toEqual([{ name: 'pipelined-ok' }]);
    const insert = sent.findIndex((s) => s.text === INSERT_PROJECT);
    const commit = sent.findIndex((s) => s.text === 'COMMIT');
    expect(insert).toBeGreaterThan(0);
    expect(commit).toBe(insert + 1);
    // pipelined: no answer arrived between sending the statement and sending the COMMIT
    expect(sent[commit]?.answeredBefore).toBe(sent[insert]?.answeredBefore);
    expect(sent.filter((s) => s.text === 'COMMIT')).toHaveLength(1);
    // committed by the time run resolved: another connection sees it
    expect(await projectsNamed('pipelined-ok')).toBe(1);
  });

  it('a failing last statement rejects the run and commits nothing written before it', async () => {
    await expect(
      tx.run(tenant, async () => {
        await tx.query(insertProject(tenant, 'pipelined-failed'));
        await tx.queryAndCommit(fails(0));
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await projectsNamed('pipelined-failed')).toBe(0);
    // every pooled connection still serves transactions (none was left mid-transaction)
    for (let i = 0; i < 25; i++) {
      await tx.run(tenant, () => tx.queryAndCommit(insertProject(tenant, `pipelined-next-${i}`)));
    }
    expect(await projectsNamed('pipelined-next-24')).toBe(1);
  });

  it('in a run that joined an outer transaction, does not commit: the outer failure undoes it', async () => {
    await expect(
      tx.run(tenant, async () => {
        await tx.run(tenant, () => tx.queryAndCommit(insertProject(tenant, 'pipelined-joined')));
        // still inside the transaction: the joined run's statement did not end it
        await tx.query(one);
        throw new Error('the outer work fails');
      }),
    ).rejects.toThrow('the outer work fails');
    expect(await projectsNamed('pipelined-joined')).toBe(0);
  });

  it('refuses any statement after it', async () => {
    await expect(
      tx.run(tenant, async () => {
        await tx.queryAndCommit(insertProject(tenant, 'pipelined-then-more'));
        await tx.query(one);
      }),
    ).rejects.toThrow(/has committed/);
    await expect(
      tx.run(tenant, async () => {
        await tx.queryAndCommit(insertProject(tenant, 'pipelined-then-manager'));
        await tx.manager.query('SELECT 1');
      }),
    ).rejects.toThrow(/has committed/);
  });

  it('a transaction whose statement failed never reports success, even if the work swallowed it', async () => {
    await expect(
      tx.run(tenant, async () => {
        await tx.query(insertProject(tenant, 'pipelined-swallowed'));
        await tx.query(fails(0)).catch(() => undefined);
        return 'looks fine';
      }),
    ).rejects.toThrow(/did not commit \(ROLLBACK\)/);
    expect(await projectsNamed('pipelined-swallowed')).toBe(0);
  });
});
