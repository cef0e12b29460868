import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from '../config/app-config.js';
import { HeldText } from '../http/json-text.js';
import { BIG_PAGE_ITEMS, PageReads } from './page-reads.js';
import { sql } from './statement.js';
import type { TenantTransactions } from './tenant-transactions.js';

/** readOnce calls as they start, each answered when the test says (no database: the gate only). */
function recordingTransactions(inside = false) {
  const started: Array<{
    label: unknown;
    answer: (rows: unknown[]) => void;
    fail: (e: Error) => void;
  }> = [];
  const tx = {
    insideTransaction: () => inside,
    // as TenantTransactions does, `hold` sees the rows before the caller does
    readOnce: (
      _tenantId: number,
      statement: { values: unknown[] },
      hold?: (rows: object[]) => void,
    ) =>
      new Promise<unknown[]>((answer, fail) =>
        started.push({
          label: statement.values[0],
          answer: (rows) => {
            hold?.(rows as object[]);
            answer(rows);
          },
          fail,
        }),
      ),
  } as unknown as TenantTransactions;
  return { tx, started };
}

const settle = () => new Promise((ok) => setImmediate(ok));
const config = { DATABASE_BIG_PAGE_READS: 2 } as AppConfig;

describe('PageReads', () => {
  it(`reads at most DATABASE_BIG_PAGE_READS pages of more than ${BIG_PAGE_ITEMS} items at once, in arrival order; smaller pages never wait`, async () => {
    const { tx, started } = recordingTransactions();
    const reads = new PageReads(tx, config);
    const big = (n: number) => reads.read(1, BIG_PAGE_ITEMS + 1, sql`SELECT ${n}`);
    const results = [big(1), big(2), big(3), big(4)];
    const small = reads.read(1, BIG_PAGE_ITEMS, sql`SELECT ${'small'}`);
    await settle();
    const labels = () => started.map((s) => s.label);
    expect(labels()).toEqual(['small', 1, 2]);
    started[0]!.answer(['s']);
    await expect(small).resolves.toEqual(['s']);
    // a failed read frees its slot as an answered one does
    started[2]!.fail(new Error('gone'));
    await expect(results[1]).rejects.toThrow('gone');
    await settle();
    expect(labels()).toEqual(['small', 1, 2, 3]);
    started[1]!.answer([1]);
    await settle();
    expect(labels()).toEqual(['small', 1, 2, 3, 4]);
    started[3]!.answer([3]);
    started[4]!.answer([4]);
    await expect(Promise.all([results[0], results[2], results[3]])).resolves.toEqual([
      [1],
      [3],
      [4],
    ]);
  });
  it("takes tenants in turns: one tenant's queue of big pages delays another's next page by one turn", async () => {
    const { tx, started } = recordingTransactions();
    const reads = new PageReads(tx, config);
    const big = (tenant: number, n: string) =>
      reads.read(tenant, BIG_PAGE_ITEMS + 1, sql`SELECT ${n}`);
    const flood = ['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => big(1, n));
    await settle();
    const other = big(2, 'b1');
    await settle();
    const labels = () => started.map((s) => s.label);
    expect(labels()).toEqual(['a1', 'a2']);
    started[0]!.answer([]);
    await settle();
    // a3 has waited longer, but tenant 2 has not had a turn
    expect(labels()).toEqual(['a1', 'a2', 'b1']);
    started[2]!.answer(['b']);
    await expect(other).resolves.toEqual(['b']);
    // then tenant 1's own, in order, each as a slot frees
    for (const i of [1, 3, 4, 5]) {
      await settle();
      started[i]!.answer([]);
    }
    await Promise.all(flood);
    expect(labels()).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('never makes a read inside a transaction wait (it holds a pooled connection already)', async () => {
    const { tx, started } = recordingTransactions(true);
    const reads = new PageReads(tx, { DATABASE_BIG_PAGE_READS: 1 } as AppConfig);
    void reads.read(1, BIG_PAGE_ITEMS + 1, sql`SELECT ${'x'}`);
    void reads.read(1, BIG_PAGE_ITEMS + 1, sql`SELECT ${'y'}`);
    await settle();
    expect(started.map((s) => s.label)).toEqual(['x', 'y']);
  });

  it.each([
    ['small', false, BIG_PAGE_ITEMS],
    ['big', false, BIG_PAGE_ITEMS + 1],
    ['in a transaction', true, BIG_PAGE_ITEMS + 1],
  ])('holds the part columns of a %s page as the driver answers', async (_, inside, items) => {
    const { tx, started } = recordingTransactions(inside);
    const reads = new PageReads(tx, config);
    const read = reads.read<Record<string, unknown>>(1, items, sql`SELECT ${'page'}`);
    await settle();
    started[0]!.answer([{ data_0: '{"id":1}', data_1: null, last_key: '1', more: false }]);
    const [row] = await read;
    expect(row!['data_0']).toBeInstanceOf(HeldText);
    expect((row!['data_0'] as HeldText).text).toBe('{"id":1}');
    expect(row).toMatchObject({ data_1: null, last_key: '1', more: false });
  });
});
