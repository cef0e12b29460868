import { describe, expect, it } from '@jest/globals';
import type { ClaimedRow } from '../repository/delivery-claims.repository.js';
import { claimedRow, deferred } from './delivery-fixtures.spec-support.js';
import { type ChainRow, EXTEND_AHEAD, runChain, type SendChainDeps } from './send-chain.js';

/**
 * A chain's collaborators, all in memory: a clock the test moves, sends that take `sendMs` of it
 * and succeed unless listed in `failing`, and extensions served from `more` (one batch per call).
 */
function harness(
  options: {
    sendMs?: number;
    windowMs?: number;
    failing?: string[];
    more?: ClaimedRow[][];
    changed?: string[];
    mayExtend?: boolean;
  } = {},
) {
  let clock = 0;
  const log: string[] = [];
  const released: string[] = [];
  const more = [...(options.more ?? [])];
  let running = true;
  const deps: SendChainDeps = {
    now: () => clock,
    windowMs: options.windowMs ?? 2_000,
    running: () => running,
    unchanged: (row) => !(options.changed ?? []).includes(row.id),
    deliver: async ({ row }) => {
      log.push(`send ${row.id}`);
      await Promise.resolve();
      clock += options.sendMs ?? 3;
      return !(options.failing ?? []).includes(row.id);
    },
    release: (rows) => released.push(...rows.map((row) => row.id)),
    mayExtend: () => options.mayExtend ?? true,
    extend: async (tail) => {
      log.push(`extend after ${tail.id}`);
      await Promise.resolve();
      return (more.shift() ?? []).map((row) => ({ row, claimedAt: clock }));
    },
  };
  const chain = (ids: number[]): ChainRow[] =>
    ids.map((id) => ({ row: claimedRow(id), claimedAt: clock }));
  return {
    deps,
    log,
    released,
    chain,
    stop: () => {
      running = false;
    },
  };
}

const rows = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => claimedRow(from + i));

/** The first request for more waits until the returned function answers it; later ones find none. */
function holdFirstRequest(h: ReturnType<typeof harness>): (more: ClaimedRow[]) => void {
  const answer = deferred<ChainRow[]>();
  let asked = 0;
  h.deps.extend = async (tail) => {
    h.log.push(`extend after ${tail.id}`);
    return (asked += 1) === 1 ? answer.promise : [];
  };
  return (more) => answer.resolve(more.map((row) => ({ row, claimedAt: 0 })));
}

/** Lets every pending promise callback run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('runChain', () => {
  it('sends a chain in order and, with no rows due, ends after one look for more', async () => {
    const h = harness();
    expect(await runChain(h.chain([1, 2, 3]), h.deps)).toBe(1);
    expect(h.log).toEqual(['send 1', 'extend after 3', 'send 2', 'send 3']);
    expect(h.released).toEqual([]);
  });

  it('asks for more before its last rows are sent and goes on with them', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => i + 1);
    const h = harness({ more: [rows(13, 20)] });
    expect(await runChain(h.chain(ids), h.deps)).toBe(2);
    const extendAt = h.log.indexOf('extend after 12');
    // asked while EXTEND_AHEAD rows were still to be sent, not after the chain ran dry
    expect(h.log.slice(extendAt + 1, extendAt + 1 + EXTEND_AHEAD)).toEqual(
      ids.slice(-EXTEND_AHEAD).map((id) => `send ${id}`),
    );
    expect(h.log.filter((step) => step.startsWith('send'))).toEqual(
      [...ids, ...Array.from({ length: 8 }, (_, i) => i + 13)].map((id) => `send ${id}`),
    );
    // and again before the extension's own last rows
    expect(h.log.indexOf('extend after 20')).toBeLessThan(h.log.indexOf('send 13'));
  });

  it('sends its last row (which holds the slot) only once the rows asked for have come', async () => {
    const h = harness();
    const answer = holdFirstRequest(h);
    const done = runChain(h.chain([1, 2, 3]), h.deps);
    await settled();
    // row 3's result would free the slot while the extension is still being claimed
    expect(h.log).toEqual(['send 1', 'extend after 3', 'send 2']);
    answer(rows(4, 5));
    expect(await done).toBe(2);
    expect(h.log.filter((step) => step.startsWith('send'))).toEqual(
      [1, 2, 3, 4, 5].map((id) => `send ${id}`),
    );
  });

  it("never asks for more once its last row is sent: that row's result frees the slot", async () => {
    const h = harness({ more: [rows(2, 3)] });
    expect(await runChain(h.chain([1]), h.deps)).toBe(1);
    expect(h.log).toEqual(['send 1']);
    expect(h.released).toEqual([]);
  });

  it('asks for more at its last row when it could not before, and sends that row after', async () => {
    // row 1 is the first timed send, so row 2 (the last) is the first that may ask
    const h = harness();
    const answer = holdFirstRequest(h);
    const done = runChain(h.chain([1, 2]), h.deps);
    await settled();
    expect(h.log).toEqual(['send 1', 'extend after 2']);
    answer(rows(3, 4));
    expect(await done).toBe(2);
    expect(h.log.filter((step) => step.startsWith('send'))).toEqual(
      [1, 2, 3, 4].map((id) => `send ${id}`),
    );
  });

  it('takes a failed request for more as none, and still sends its last row', async () => {
    const h = harness();
    h.deps.extend = () => Promise.reject(new Error('connection lost'));
    expect(await runChain(h.chain([1, 2, 3]), h.deps)).toBe(1);
    expect(h.log).toEqual(['send 1', 'send 2', 'send 3']);
    expect(h.released).toEqual([]);
  });

  it('hands back its last row when waiting for more took it past its window', async () => {
    const h = harness({ windowMs: 1_000 });
    h.deps.extend = async () => {
      h.deps.now = () => 5_000;
      return [];
    };
    await runChain(h.chain([1, 2]), h.deps);
    expect(h.log).toEqual(['send 1']);
    expect(h.released).toEqual(['2']);
  });

  it('does not ask for more while its tenant has no room, nor before it has timed a send', async () => {
    const h = harness({ mayExtend: false, more: [rows(3, 4)] });
    expect(await runChain(h.chain([1, 2]), h.deps)).toBe(1);
    expect(h.log).toEqual(['send 1', 'send 2']);
  });

  it('does not ask for more when its receiver is slow for its window', async () => {
    // 300 ms a send against a 2 s window: new rows would go late before their turn
    const h = harness({ sendMs: 300, more: [rows(3, 4)] });
    await runChain(h.chain([1, 2]), h.deps);
    expect(h.log).toEqual(['send 1', 'send 2']);
  });

  it('hands the rest back unsent after a failed attempt, with the rows it was given meanwhile', async () => {
    const h = harness({ failing: ['2'], more: [rows(4, 5)] });
    await runChain(h.chain([1, 2, 3]), h.deps);
    expect(h.log).toEqual(['send 1', 'extend after 3', 'send 2']);
    expect(h.released).toEqual(['3', '4', '5']);
  });

  it('hands back a row that could no longer end within its lease', async () => {
    const h = harness({ sendMs: 600, windowMs: 1_000 });
    await runChain(h.chain([1, 2, 3]), h.deps);
    // row 2 starts 600 ms after the claim, row 3 would start 1,200 ms after it
    expect(h.log).toEqual(['send 1', 'send 2']);
    expect(h.released).toEqual(['3']);
  });

  it('stops once its webhook changed; the first row is not checked (its claim just read it)', async () => {
    const h = harness({ changed: ['1', '3'] });
    await runChain(h.chain([1, 2, 3, 4]), h.deps);
    expect(h.log.filter((step) => step.startsWith('send'))).toEqual(['send 1', 'send 2']);
    expect(h.released).toEqual(['3', '4']);
  });

  it('hands the rest back on shutdown', async () => {
    const h = harness();
    const gate = deferred<boolean>();
    h.deps.deliver = async () => gate.promise;
    const done = runChain(h.chain([1, 2, 3]), h.deps);
    h.stop();
    gate.resolve(true);
    await done;
    expect(h.released).toEqual(['2', '3']);
  });

  it('waits for a version look-up when no fresh reading is known, and re-checks the window', async () => {
    const h = harness({ windowMs: 1_000 });
    const lookUp = deferred<boolean>();
    const asked = deferred<void>();
    h.deps.unchanged = () => {
      asked.resolve();
      return lookUp.promise;
    };
    const done = runChain(h.chain([1, 2]), h.deps);
    await asked.promise;
    expect(h.log).toEqual(['send 1']);
    // the look-up ends after the row's window closed: it goes back unsent
    h.deps.now = () => 5_000;
    lookUp.resolve(true);
    await done;
    expect(h.log).toEqual(['send 1']);
    expect(h.released).toEqual(['2']);
  });
});
