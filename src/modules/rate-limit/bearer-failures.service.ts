import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { callerKey } from './caller-key.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited.error.js';

/** The storages' namespace of these counters (beside `api`, `token` and `token-failures`). */
const THROTTLER = 'bearer-failures';
const MINUTE = 60_000;
/** Addresses remembered as blocked at once; past it the oldest is forgotten (it may fail again). */
const MAX_BLOCKED = 10_000;

/**
 * Bearer credentials that reach the database and are not found, counted per caller address
 * (`callerKey`). A well-formed token (prefix, length, checksum) is cheap to forge, and each one
 * the credential cache does not know costs a database look-up; past
 * `RATE_LIMIT_BEARER_FAILURES_PER_MINUTE` failed look-ups from one address, its look-ups are
 * refused (429) until the window ends. What the cache already knows is answered as before, from
 * any address.
 *
 * Only failures are counted (after the look-up), and the block is kept in this process once a
 * count passes the limit, so a found credential costs no counter operation (with Redis, no round
 * trip). Concurrent failures from one address may pass the limit by as many as are in flight.
 */
@Injectable()
export class BearerFailuresService {
  private readonly limit: number;
  /** Addresses over the limit, until when (ms), oldest first. */
  private readonly blocked = new Map<string, number>();

  constructor(
    config: AppConfig,
    private readonly store: RateLimitStore,
  ) {
    this.limit = config.RATE_LIMIT_BEARER_FAILURES_PER_MINUTE;
  }

  /**
   * Runs the database look-up of a bearer credential sent from `ip`: throws `RateLimitedError`
   * instead while the address is over the limit, and counts a look-up that finds nothing.
   */
  async lookUp<T>(ip: string | undefined, lookUp: () => Promise<T | null>): Promise<T | null> {
    if (this.limit === 0) return lookUp();
    const key = callerKey(ip);
    const until = this.blocked.get(key);
    if (until !== undefined) {
      const left = until - Date.now();
      if (left > 0) throw new RateLimitedError(Math.ceil(left / 1000));
      this.blocked.delete(key);
    }
    const found = await lookUp();
    if (found === null) await this.failed(key);
    return found;
  }

  private async failed(key: string): Promise<void> {
    const record = await this.store.storage.increment(key, MINUTE, this.limit, MINUTE, THROTTLER);
    if (record.totalHits < this.limit) return;
    const seconds = Math.max(1, record.timeToBlockExpire || record.timeToExpire);
    this.blocked.delete(key);
    this.blocked.set(key, Date.now() + seconds * 1000);
    if (this.blocked.size > MAX_BLOCKED) {
      this.blocked.delete(this.blocked.keys().next().value!);
    }
  }
}
