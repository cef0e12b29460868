import type { ClaimedRow } from '../repository/delivery-claims.repository.js';
import { nextRetryDelayMs } from './retry-schedule.js';
import type { AttemptResult } from './webhook-sender.js';

/** What became of one claimed row: the result the worker writes for it. */
export interface AttemptOutcome {
  id: string;
  tenantId: number;
  webhookId: number;
  lease: string;
  /** `released`: a chain's row handed back unsent (no attempt made). */
  nextStatus: 'succeeded' | 'retry' | 'failed' | 'released';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  /** Delay before the next attempt; null when there is none. */
  delayMs: number | null;
  /** 410 Gone: pause the webhook and hold the delivery. */
  gone: boolean;
  /** The first 1 KiB of the response body (see `WebhookSender`); null without a response. */
  responseBodyExcerpt: string | null;
}

/** A chain's row handed back unsent: due again, no attempt recorded. */
export function releasedOutcome(row: ClaimedRow): AttemptOutcome {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    webhookId: row.webhook_id,
    lease: row.lease,
    nextStatus: 'released',
    responseStatus: null,
    error: null,
    durationMs: 0,
    attemptedAt: new Date().toISOString(),
    delayMs: null,
    gone: false,
    responseBodyExcerpt: null,
  };
}

/** The outcome of an attempt at `row`, with its next attempt's delay from `schedule`. */
export function attemptOutcome(
  row: ClaimedRow,
  result: AttemptResult,
  attemptedAt: Date,
  schedule: readonly number[],
): AttemptOutcome {
  const base = {
    id: row.id,
    tenantId: row.tenant_id,
    webhookId: row.webhook_id,
    lease: row.lease,
    responseStatus: result.statusCode,
    error: result.error,
    durationMs: result.durationMs,
    attemptedAt: attemptedAt.toISOString(),
    gone: false,
    responseBodyExcerpt: result.responseBodyExcerpt ?? null,
  };
  if (result.outcome === 'succeeded') {
    return { ...base, nextStatus: 'succeeded', delayMs: null };
  }
  if (result.outcome === 'gone') {
    // The receiver asked to stop: pause the webhook; the delivery waits for re-activation.
    return { ...base, nextStatus: 'retry', delayMs: 0, gone: true };
  }
  const delay = nextRetryDelayMs(schedule, row.attempts + 1, result.retryAfterMs);
  return delay === null
    ? { ...base, nextStatus: 'failed', delayMs: null }
    : { ...base, nextStatus: 'retry', delayMs: delay };
}
