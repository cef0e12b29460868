import { describe, expect, it } from '@jest/globals';
import { attemptOutcome, releasedOutcome } from './attempt-outcome.js';
import { claimedRow } from './delivery-fixtures.spec-support.js';
import type { AttemptResult } from './webhook-sender.js';

const SCHEDULE = [5_000, 300_000, 1_800_000];
const at = new Date('2026-11-27T12:00:00.000Z');
const result = (overrides: Partial<AttemptResult>): AttemptResult => ({
  outcome: 'failed',
  statusCode: 500,
  error: 'HTTP 500',
  durationMs: 12,
  retryAfterMs: null,
  responseBodyExcerpt: 'oops',
  ...overrides,
});

describe('attemptOutcome (the retry and backoff decision)', () => {
  it('a 2xx succeeds, with nothing further due', () => {
    const outcome = attemptOutcome(
      claimedRow(1),
      result({ outcome: 'succeeded', statusCode: 204, error: null }),
      at,
      SCHEDULE,
    );
    expect(outcome).toMatchObject({
      id: '1',
      lease: 'lease-1',
      nextStatus: 'succeeded',
      responseStatus: 204,
      delayMs: null,
      gone: false,
      attemptedAt: at.toISOString(),
    });
  });

  it('a failed first attempt is retried after the first delay, within its jitter', () => {
    const outcome = attemptOutcome(claimedRow(1), result({}), at, SCHEDULE);
    expect(outcome.nextStatus).toBe('retry');
    expect(outcome.delayMs).toBeGreaterThanOrEqual(4_500);
    expect(outcome.delayMs).toBeLessThanOrEqual(5_500);
    expect(outcome).toMatchObject({ error: 'HTTP 500', responseBodyExcerpt: 'oops' });
  });

  it('each further failure takes the next delay of the schedule', () => {
    const outcome = attemptOutcome(claimedRow(1, { attempts: 2 }), result({}), at, SCHEDULE);
    expect(outcome.delayMs).toBeGreaterThanOrEqual(1_620_000);
    expect(outcome.delayMs).toBeLessThanOrEqual(1_980_000);
  });

  it('fails the delivery once the schedule is spent', () => {
    const outcome = attemptOutcome(claimedRow(1, { attempts: 3 }), result({}), at, SCHEDULE);
    expect(outcome).toMatchObject({ nextStatus: 'failed', delayMs: null });
  });

  it("honours a 429's Retry-After, bounded by the next two delays", () => {
    const soon = attemptOutcome(
      claimedRow(1),
      result({ statusCode: 429, retryAfterMs: 20_000 }),
      at,
      SCHEDULE,
    );
    expect(soon.delayMs).toBe(20_000);
    const far = attemptOutcome(
      claimedRow(1),
      result({ statusCode: 429, retryAfterMs: 86_400_000 }),
      at,
      SCHEDULE,
    );
    expect(far.delayMs).toBe(305_000);
  });

  it('a 410 pauses the webhook (gone) and holds the delivery for re-activation', () => {
    const outcome = attemptOutcome(
      claimedRow(1, { attempts: 3 }),
      result({ outcome: 'gone', statusCode: 410 }),
      at,
      SCHEDULE,
    );
    expect(outcome).toMatchObject({ nextStatus: 'retry', delayMs: 0, gone: true });
  });
});

describe('releasedOutcome', () => {
  it('hands a row back under its lease, with no attempt and no new due time', () => {
    expect(releasedOutcome(claimedRow(3, { webhook_id: 9 }))).toMatchObject({
      id: '3',
      webhookId: 9,
      lease: 'lease-3',
      nextStatus: 'released',
      delayMs: null,
      responseStatus: null,
      gone: false,
    });
  });
});
