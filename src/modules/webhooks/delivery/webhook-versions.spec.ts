import { describe, expect, it } from '@jest/globals';
import { claimedRow, deferred } from './delivery-fixtures.spec-support.js';
import { VERSION_RECHECK_MS, WebhookVersions } from './webhook-versions.js';

/** A `WebhookVersions` on a clock the test moves, its look-ups answered by the test. */
function harness() {
  let clock = 1_000;
  const lookUps: Array<ReturnType<typeof deferred<string | null>>> = [];
  const versions = new WebhookVersions(
    () => {
      const answer = deferred<string | null>();
      lookUps.push(answer);
      return answer.promise;
    },
    () => clock,
  );
  return {
    versions,
    lookUps,
    advance: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

const row = claimedRow(1);
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WebhookVersions', () => {
  it('looks the version up once when nothing is known, shared by the chains asking', async () => {
    const h = harness();
    const first = h.versions.unchanged(row);
    const second = h.versions.unchanged(row);
    expect(h.lookUps).toHaveLength(1);
    h.lookUps[0]!.resolve('v1');
    expect(await first).toBe(true);
    expect(await second).toBe(true);
  });

  it('answers at once from a reading a claim took, without a look-up', () => {
    const h = harness();
    h.versions.seen(7, 'v1', h.now());
    expect(h.versions.unchanged(row)).toBe(true);
    expect(h.versions.unchanged(claimedRow(2, { webhook_version: 'v0' }))).toBe(false);
    expect(h.lookUps).toHaveLength(0);
  });

  it('refreshes a half-old reading in the background and answers from it meanwhile', async () => {
    const h = harness();
    h.versions.seen(7, 'v1', h.now());
    h.advance(VERSION_RECHECK_MS / 2);
    expect(h.versions.unchanged(row)).toBe(true);
    expect(h.lookUps).toHaveLength(1);
    // one look-up at a time
    expect(h.versions.unchanged(row)).toBe(true);
    expect(h.lookUps).toHaveLength(1);
    // the webhook was edited: the next answer says so, still without waiting
    h.lookUps[0]!.resolve('v2');
    await settle();
    expect(h.versions.unchanged(row)).toBe(false);
  });

  it('waits for a look-up once the reading is older than VERSION_RECHECK_MS', async () => {
    const h = harness();
    h.versions.seen(7, 'v1', h.now());
    h.advance(VERSION_RECHECK_MS + 1);
    const answer = h.versions.unchanged(row);
    expect(answer).toBeInstanceOf(Promise);
    h.lookUps[0]!.resolve(null);
    // not active any more
    expect(await answer).toBe(false);
  });

  it('treats a failed look-up as a change', async () => {
    const versions = new WebhookVersions(() => Promise.reject(new Error('connection lost')));
    expect(await versions.unchanged(row)).toBe(false);
  });

  it('keeps the newer of a look-up and a claim reading', async () => {
    const h = harness();
    h.versions.seen(7, 'v1', h.now());
    h.advance(VERSION_RECHECK_MS / 2);
    expect(h.versions.unchanged(row)).toBe(true);
    // a claim started after the look-up read v3
    h.advance(1);
    h.versions.seen(7, 'v3', h.now());
    h.lookUps[0]!.resolve('v2');
    await settle();
    expect(h.versions.unchanged(claimedRow(2, { webhook_version: 'v3' }))).toBe(true);
  });
});
