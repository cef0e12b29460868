import { describe, expect, it } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import type { PausedRow } from '../repository/delivery-results.repository.js';
import type { AttemptOutcome } from './attempt-outcome.js';
import { releasedOutcome } from './attempt-outcome.js';
import { claimedRow, deferred } from './delivery-fixtures.spec-support.js';
import { ResultRecorder } from './result-recorder.js';

const outcome = (id: number): AttemptOutcome => releasedOutcome(claimedRow(id));
const ids = (batch: readonly AttemptOutcome[]) => batch.map((o) => o.id);

/** A recorder over an in-memory repository whose writes the test ends (or fails). */
function harness() {
  const writes: Array<{ ids: string[]; done: ReturnType<typeof deferred<PausedRow[] | Error>> }> =
    [];
  const recorded: string[][] = [];
  const logged: string[] = [];
  const logger = {
    error: (message: string) => logged.push(message),
    warn: (message: string) => logged.push(message),
  } as unknown as Logger;
  const recorder = new ResultRecorder(
    {
      writeResults: async (batch) => {
        const done = deferred<PausedRow[] | Error>();
        writes.push({ ids: ids(batch), done });
        const answer = await done.promise;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    logger,
    {
      disableAfterMs: 1_000,
      disableAfter: '1s',
      recorded: (batch) => recorded.push(ids(batch)),
      retryBackoffMs: 1,
    },
  );
  /** Resolves once the `n`-th write (1-based) has started. */
  const started = async (n: number) => {
    while (writes.length < n) await new Promise<void>((resolve) => setImmediate(resolve));
    return writes[n - 1]!;
  };
  return { recorder, writes, recorded, logged, started };
}

describe('ResultRecorder', () => {
  it('writes what arrives during a write together in the next one', async () => {
    const h = harness();
    h.recorder.record(outcome(1));
    const first = await h.started(1);
    h.recorder.record(outcome(2));
    h.recorder.record(outcome(3), outcome(4));
    expect(h.writes).toHaveLength(1);
    first.done.resolve([]);
    const second = await h.started(2);
    expect(second.ids).toEqual(['2', '3', '4']);
    second.done.resolve([]);
    await h.recorder.drain();
    expect(h.recorded).toEqual([['1'], ['2', '3', '4']]);
  });

  it('tries a failed write three times, then gives the batch up to its leases', async () => {
    const h = harness();
    h.recorder.record(outcome(1));
    for (let n = 1; n <= 3; n++) (await h.started(n)).done.resolve(new Error('deadlock'));
    await h.recorder.drain();
    expect(h.writes.map((w) => w.ids)).toEqual([['1'], ['1'], ['1']]);
    // the rows' leases are done with: they expire and are attempted again
    expect(h.recorded).toEqual([['1']]);
    expect(h.logged.join('\n')).toMatch(/recording 1 webhook attempts failed: deadlock/);
  });

  it('logs the webhooks a batch paused, and why', async () => {
    const h = harness();
    h.recorder.record(outcome(1));
    (await h.started(1)).done.resolve([
      { id: 7, tenant_id: 1, status_reason: 'gone' },
      { id: 8, tenant_id: 1, status_reason: null },
    ]);
    await h.recorder.drain();
    expect(h.logged).toEqual(['webhook 7 of tenant 1 paused: its receiver answered 410 Gone']);
  });
});
