/** Default for `WEBHOOK_RETRY_SCHEDULE` (docs/integrators/verifying-webhooks.md): 7 delays, hence 8 attempts in total. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/** Relative jitter applied to scheduled delays, so retries of a burst of failures spread out. */
export const RETRY_JITTER = 0.1;

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// Units are case-sensitive on purpose: "5M" could mean months to a reader, and "5m" minutes.
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Parses `5s`, `5m`, `2h`, `500ms`, `1d`, `1.5h` or a bare number of seconds into whole
 * milliseconds. Throws on anything else, since it validates configuration at start-up.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  const match = DURATION.exec(trimmed);
  if (!match) {
    throw new Error(
      `invalid duration ${JSON.stringify(text)}: expected a non-negative number with an optional ` +
        'unit ms, s, m, h or d (a bare number is seconds), e.g. "5s", "30m", "500ms"',
    );
  }
  const [, amount = '', unit = 's'] = match;
  const ms = Math.round(Number(amount) * (UNIT_MS[unit] ?? 1_000));
  if (!Number.isSafeInteger(ms)) {
    throw new Error(`invalid duration ${JSON.stringify(text)}: too large`);
  }
  return ms;
}

/** Parses a comma list of durations such as `WEBHOOK_RETRY_SCHEDULE` (`5s, 5m,2h`). */
export function parseRetrySchedule(text: string): number[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.length === 1 && items[0] === '') {
    throw new Error('invalid retry schedule: it must list at least one duration, e.g. "5s,5m,2h"');
  }
  return items.map((item, index) => {
    if (item === '') {
      throw new Error(
        `invalid retry schedule ${JSON.stringify(text)}: entry ${index + 1} is empty`,
      );
    }
    try {
      return parseDuration(item);
    } catch (error) {
      throw new Error(
        `invalid retry schedule ${JSON.stringify(text)}: entry ${index + 1}: ${(error as Error).message}`,
      );
    }
  });
}

function assertAttemptsMade(attemptsMade: number): void {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be an integer >= 1, got ${attemptsMade}`);
  }
}

/**
 * Delay before the next attempt after `attemptsMade` failed ones (1 = the first attempt failed),
 * with ±10 % jitter; null once the schedule is exhausted: the first attempt is immediate and each
 * of the N delays buys one retry, so after N + 1 failures the delivery is `failed`.
 */
export function retryDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  random: () => number = Math.random,
): number | null {
  assertAttemptsMade(attemptsMade);
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return null;
  // random() is in [0, 1), so the factor is in [0.9, 1.1).
  return Math.round(base * (1 + (random() * 2 - 1) * RETRY_JITTER));
}

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Parses an HTTP `Retry-After` value (RFC 9110 §10.2.3): delta-seconds or an HTTP-date, relative
 * to `now`. A date in the past gives 0. Null when absent or unparseable, so a malformed header
 * falls back to the normal schedule instead of failing the delivery.
 */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (value === '') return null;
  if (/^\d+$/.test(value)) {
    const ms = Number(value) * 1_000;
    return Number.isFinite(ms) ? ms : null;
  }
  // Date.parse alone is far too lenient ("Foo 2020 GMT" is a date to V8), so only the three
  // HTTP-date forms are handed to it.
  let text: string;
  if (IMF_FIXDATE.test(value) || RFC850_DATE.test(value)) text = value;
  // asctime carries no zone but is UTC by definition; Date.parse would read it as local time.
  else if (ASCTIME_DATE.test(value)) text = `${value} GMT`;
  else return null;
  const date = Date.parse(text);
  if (!Number.isFinite(date)) return null;
  return Math.max(0, date - now.getTime());
}

/**
 * Bounds a `Retry-After` (from a 429 or 503) for the retry that follows attempt `attemptsMade`.
 *
 * "Bounded by the next two scheduled delays" (docs/integrators/verifying-webhooks.md) means: at least 0 and at most the
 * sum of the nominal delay that would be used now and the one after it (just the former when only
 * one delay is left). That lets a receiver push a retry out by roughly one step of the schedule
 * but never park a delivery indefinitely. The value is used as given, without jitter, since the
 * receiver asked for that moment. Null when the schedule is exhausted: Retry-After never buys an
 * extra attempt.
 */
export function boundRetryAfterMs(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfter: number,
): number | null {
  assertAttemptsMade(attemptsMade);
  const next = schedule[attemptsMade - 1];
  if (next === undefined) return null;
  const upper = next + (schedule[attemptsMade] ?? 0);
  return Math.min(Math.max(0, retryAfter), upper);
}

/**
 * The delay the delivery worker should wait after a failed attempt: the bounded `Retry-After`
 * when the attempt produced one (see `AttemptResult.retryAfterMs`), else the jittered schedule.
 * Null means no attempt is left and the delivery is `failed`.
 */
export function nextRetryDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfter: number | null,
  random: () => number = Math.random,
): number | null {
  if (retryAfter !== null) return boundRetryAfterMs(schedule, attemptsMade, retryAfter);
  return retryDelayMs(schedule, attemptsMade, random);
}
