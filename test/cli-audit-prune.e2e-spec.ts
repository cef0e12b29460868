import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { parsePruneBound } from '../src/modules/audit/cli/audit.commands.js';
import { UsageError } from '../src/common/cli/cli-output.js';
import { startTestApp, type TestApp } from './support/app.js';
import { type CliResult, runCli, runCliInProcess } from './support/cli.js';
import { withMessage } from './support/expect-message.js';
import { createTenant } from './support/factories.js';

interface Row {
  id: number;
  tenant_id: number | null;
  action: string;
}

describe('CLI: audit prune', () => {
  let t: TestApp;
  let db: DataSource;
  let a: number;
  let b: number;

  const cli = (...args: string[]): Promise<CliResult> => runCli(t, ...args);

  /** Inserts `n` entries of `tenant` created `daysAgo` days ago (as the owner, which may insert). */
  async function seed(tenant: number, daysAgo: number, n: number, action: string): Promise<void> {
    await db.query(
      `INSERT INTO audit_log (tenant_id, action, outcome, created_at)
       SELECT $1, $2, 'success', now() - make_interval(days => $3) FROM generate_series(1, $4)`,
      [tenant, action, daysAgo, n],
    );
  }

  const rows = (): Promise<Row[]> =>
    db.query(`SELECT id::int, tenant_id, action FROM audit_log ORDER BY id`);
  const count = (list: Row[], tenant: number | null, action: string): number =>
    list.filter((r) => r.tenant_id === tenant && r.action === action).length;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    a = await createTenant(t.app);
    b = await createTenant(t.app);
    for (const tenant of [a, b]) {
      await seed(tenant, 500, 5, 'old.action');
      await seed(tenant, 10, 3, 'recent.action');
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it("deletes only the tenant's entries older than the bound, in batches, and records the prune", async () => {
    const saved = process.env.RETENTION_BATCH_SIZE;
    process.env.RETENTION_BATCH_SIZE = '2'; // 5 old rows: three statements
    let pruned: CliResult;
    try {
      // the CLI on its own: the batch size is its process's setting
      pruned = await runCliInProcess(
        t,
        'audit',
        'prune',
        '--before',
        '400d',
        '--tenant',
        String(a),
      );
    } finally {
      if (saved === undefined) delete process.env.RETENTION_BATCH_SIZE;
      else process.env.RETENTION_BATCH_SIZE = saved;
    }
    withMessage(pruned.stdout + pruned.stderr, () => expect(pruned.code).toBe(0));
    expect(pruned.stdout.trim().split('\n')).toHaveLength(1);
    expect(pruned.out).toEqual({ deleted: 5, before: expect.any(String) });
    const before = new Date(pruned.out.before as string).getTime();
    expect(Math.abs(before - (Date.now() - 400 * 86_400_000))).toBeLessThan(120_000);

    const after = await rows();
    expect(count(after, a, 'old.action')).toBe(0);
    expect(count(after, a, 'recent.action')).toBe(3);
    expect(count(after, b, 'old.action')).toBe(5);
    expect(count(after, b, 'recent.action')).toBe(3);

    const [entry] = await db.query(
      `SELECT tenant_id, credential_ref, action, target, outcome, detail FROM audit_log
        WHERE action = 'audit.prune'`,
    );
    expect(entry).toEqual({
      tenant_id: a,
      credential_ref: 'cli',
      action: 'audit.prune',
      target: `audit_log:tenant:${a}`,
      outcome: 'success',
      detail: `before=${pruned.out.before} deleted=5`,
    });
    // the tenant sees that its trail was pruned
    const listed = await cli('audit', 'list', '--tenant', String(a), '--limit', '1');
    expect(listed.out.data[0]).toMatchObject({ action: 'audit.prune', credential: 'cli' });
  });

  it('without --tenant prunes every tenant; the prune entries survive later prunes', async () => {
    const first = await cli('audit', 'prune', '--before', '2d');
    withMessage(first.stdout + first.stderr, () => expect(first.code).toBe(0));
    // b's 5 old and both tenants' 3 recent (10 days): everything but the prune entry of the first test
    expect(first.out.deleted).toBe(11);

    const second = await cli('audit', 'prune', '--before', '1d');
    expect(second.code).toBe(0);
    expect(second.out.deleted).toBe(0);

    const after = await rows();
    expect(after.map((r) => [r.tenant_id, r.action])).toEqual([
      [a, 'audit.prune'],
      [null, 'audit.prune'],
      [null, 'audit.prune'],
    ]);
    const details: Array<{ detail: string; target: string }> = await db.query(
      `SELECT detail, target FROM audit_log WHERE tenant_id IS NULL ORDER BY id`,
    );
    expect(details).toEqual([
      { detail: `before=${first.out.before} deleted=11`, target: 'audit_log' },
      { detail: `before=${second.out.before} deleted=0`, target: 'audit_log' },
    ]);
  });

  it('leaves every other DELETE, UPDATE and TRUNCATE refused', async () => {
    await seed(a, 500, 2, 'old.again');
    const old = (): Promise<Array<{ n: number }>> =>
      db.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'old.again'`);

    await expect(db.query(`DELETE FROM audit_log`)).rejects.toThrow(/append-only/);
    await expect(db.query(`DELETE FROM audit_log WHERE action = 'old.again'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query(`UPDATE audit_log SET outcome = 'failure'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);

    // with the prune setting: UPDATE still refused, a row newer than the bound, or a bound less
    // than a day old, still refused
    const inPrune = (bound: string, sql: string): Promise<unknown> =>
      db.transaction(async (m) => {
        await m.query(`SELECT set_config('app.audit_prune_before', $1, true)`, [bound]);
        return m.query(sql);
      });
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await expect(inPrune(twoDaysAgo, `UPDATE audit_log SET outcome = 'failure'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(inPrune(twoDaysAgo, `DELETE FROM audit_log`)).rejects.toThrow(/append-only/);
    await expect(
      inPrune(new Date().toISOString(), `DELETE FROM audit_log WHERE action = 'old.again'`),
    ).rejects.toThrow(/append-only/);
    await expect(inPrune(twoDaysAgo, `TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
    expect(await old()).toEqual([{ n: 2 }]);

    // the setting is transaction-local: once the prune's transaction ends, DELETE is refused again
    await inPrune(twoDaysAgo, `SELECT 1`);
    await expect(db.query(`DELETE FROM audit_log WHERE action = 'old.again'`)).rejects.toThrow(
      /append-only/,
    );
    expect(await old()).toEqual([{ n: 2 }]);
  });

  it.each([
    [['--before', '2099-01-01'], '--before must be at least 1 day in the past'],
    [['--before', '12h'], '--before must be at least 1 day in the past'],
    [['--before', 'last year'], expect.stringMatching(/^--before must be an ISO date/)],
    [[], '--before is required'],
  ])('refuses %j with a usage error, deleting nothing', async (args, message) => {
    const [{ n: before }] = await db.query(`SELECT count(*)::int AS n FROM audit_log`);
    const r = await cli('audit', 'prune', ...args);
    expect(r.code).toBe(2);
    expect(r.out).toEqual({ error: { code: 'usage', message } });
    const [{ n: after }] = await db.query(`SELECT count(*)::int AS n FROM audit_log`);
    expect(after).toBe(before);
  });

  it('an unknown tenant is not_found (exit 1), deleting nothing', async () => {
    const r = await cli('audit', 'prune', '--before', '400d', '--tenant', '999999');
    expect(r.code).toBe(1);
    expect(r.out).toEqual({ error: { code: 'not_found', message: 'tenant not found' } });
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'old.again'`,
    );
    expect(n).toBe(2);
  });

  it('parses dates and ages against the given now', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    expect(parsePruneBound('400d', now).toISOString()).toBe('2025-10-19T12:00:00.000Z');
    expect(parsePruneBound('36h', now).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(parsePruneBound('24h', now).toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(parsePruneBound('2025-01-31', now).toISOString()).toBe('2025-01-31T00:00:00.000Z');
    expect(parsePruneBound('2025-01-31T12:30:00+02:00', now).toISOString()).toBe(
      '2025-01-31T10:30:00.000Z',
    );
    expect(() => parsePruneBound('23h', now)).toThrow(UsageError);
    expect(() => parsePruneBound('0d', now)).toThrow('--before must be at least 1 day in the past');
    expect(() => parsePruneBound('2025-02-30', now)).toThrow(
      '--before 2025-02-30 is not a valid date',
    );
    // a time without a zone would be read in the machine's zone: refused
    expect(() => parsePruneBound('2025-01-01T00:00:00', now)).toThrow(/^--before must be an ISO/);
    expect(() => parsePruneBound('2025-01-01 00:00:00Z', now)).toThrow(UsageError);
    expect(() => parsePruneBound('2026-11-23', now)).toThrow(UsageError);
  });
});
