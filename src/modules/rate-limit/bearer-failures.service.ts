import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { callerKey, callerNetworkKey } from './caller-key.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited.error.js';

/** The storages' namespace of these counters (beside `api`, `token` and `token-failures`). */
const THROTTLER = 'bearer-failures';
const MINUTE = 60_000;
/** Addresses remembered as blocked at once; past it the oldest is forgotten (it may fail again). */
const MAX_BLOCKED = 10_000;
/** How long a credential found once is let through a block, and how many are remembered. */
const VERIFIED_MS = 15 * MINUTE;
const MAX_VERIFIED = 10_000;
/** An IPv6 /48 may fail this many times an address's limit (16 of its 65,536 /64s at full rate). */
const NETWORK_FACTOR = 16;

/**
 * Bearer credentials that reach the database and are not found, counted per caller address
 * (`callerKey`). A well-formed token (prefix, length, checksum) is cheap to forge, and each one
 * the credential cache does not know costs a database look-up; past
 * `RATE_LIMIT_BEARER_FAILURES_PER_MINUTE` failed look-ups from one address, its look-ups are
 * refused (429) until the window ends, and at most that many run from it at once.
 *
 * A credential found in the last VERIFIED_MS (by its digest) is still looked up from a blocked
 * address: the clients behind a NAT or a load balancer that shares one address with a flooder
 * keep working, while unknown credentials from there wait for the window to end.
 *
 * An IPv6 caller is counted by its /64, which one host can fill with addresses, and its /48 is
 * counted too, at NETWORK_FACTOR times the limit: a site spreading its failures over its /64s is
 * still bounded.
 *
 * Only failures are counted (after the look-up) and a block is kept in this process once a count
 * reaches the limit, so a found credential costs no counter operation (with Redis, no round trip).
 * A counter store that fails does not fail the request: the look-up's answer stands.
 */
@Injectable()
export class BearerFailuresService {
  private readonly logger = new Logger('BearerFailures');
  private readonly limit: number;
  /** Addresses over the limit, until when (ms), oldest first. */
  private readonly blocked = new Map<string, number>();
  /** Look-ups running per address (entries only while some run). */
  private readonly inFlight = new Map<string, number>();
  /** Credentials found, by cache key (a digest), when (ms), least recently found first. */
  private readonly verified = new Map<string, number>();

  constructor(
    config: AppConfig,
    private readonly store: RateLimitStore,
  ) {
    this.limit = config.RATE_LIMIT_BEARER_FAILURES_PER_MINUTE;
  }

  /**
   * Runs the database look-up of the bearer credential `credential` (its cache key, a digest) sent
   * from `ip`: throws `RateLimitedError` instead while the address is over the limit (unless the
   * credential was found lately), and counts a look-up that finds nothing.
   */
  async lookUp<T>(
    ip: string | undefined,
    credential: string,
    lookUp: () => Promise<T | null>,
  ): Promise<T | null> {
    if (this.limit === 0) return lookUp();
    const key = callerKey(ip);
    const network = callerNetworkKey(ip);
    const known = this.wasVerified(credential);
    if (!known) {
      if (network !== undefined) this.refuseIfBlocked(network);
      this.admit(key);
    }
    try {
      const found = await lookUp();
      if (found === null) {
        // revoked or expired since: no longer let through a block
        this.verified.delete(credential);
        await this.failed(key, this.limit);
        if (network !== undefined) await this.failed(network, this.limit * NETWORK_FACTOR);
      } else this.remember(credential);
      return found;
    } finally {
      if (!known) this.done(key);
    }
  }

  private admit(key: string): void {
    this.refuseIfBlocked(key);
    // failures are counted once they are known: this many in flight is the most a window overshoots
    const running = this.inFlight.get(key) ?? 0;
    if (running >= this.limit) throw new RateLimitedError(1);
    this.inFlight.set(key, running + 1);
  }

  private refuseIfBlocked(key: string): void {
    const until = this.blocked.get(key);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left > 0) throw new RateLimitedError(Math.ceil(left / 1000));
    this.blocked.delete(key);
  }

  private done(key: string): void {
    const running = (this.inFlight.get(key) ?? 1) - 1;
    if (running > 0) this.inFlight.set(key, running);
    else this.inFlight.delete(key);
  }

  private wasVerified(credential: string): boolean {
    const at = this.verified.get(credential);
    return at !== undefined && Date.now() - at < VERIFIED_MS;
  }

  private remember(credential: string): void {
    this.verified.delete(credential);
    this.verified.set(credential, Date.now());
    if (this.verified.size > MAX_VERIFIED) {
      this.verified.delete(this.verified.keys().next().value!);
    }
  }

  private async failed(key: string, limit: number): Promise<void> {
    let hits: number;
    let seconds: number;
    try {
      const record = await this.store.storage.increment(key, MINUTE, limit, MINUTE, THROTTLER);
      hits = record.totalHits;
      seconds = Math.max(1, record.timeToBlockExpire || record.timeToExpire);
    } catch (err) {
      this.logger.warn({ err }, 'failed bearer look-up not counted: the counter store failed');
      return;
    }
    if (hits < limit) return;
    this.blocked.delete(key);
    this.blocked.set(key, Date.now() + seconds * 1000);
    if (this.blocked.size > MAX_BLOCKED) {
      this.blocked.delete(this.blocked.keys().next().value!);
    }
  }
}
