import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import { catchError, concatMap, finalize, from, type Observable, throwError } from 'rxjs';
import { AppConfig } from '../../common/config/app-config.js';
import { KeyedSlots } from '../../common/concurrency/keyed-slots.js';
import { countedAddress } from '../../common/http/client-address.js';
import { OAuthError } from '../../common/http/oauth-error.js';
import type { HttpPlatform, HttpRequest } from '../../common/http/platform/http-platform.js';
import { HTTP_PLATFORM } from '../../common/http/platform/http-platform.module.js';
import { callerKey, callerNetworkKey } from './caller-key.js';
import { isTokenRequest } from './rate-limit.guard.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited.error.js';

/** The storages' namespace of these counters (beside the guard's `api` and `token`). */
const THROTTLER = 'token-failures';
const MINUTE = 60_000;
/** An IPv6 /48 may fail this many times an address's limit (as for bearer failures). */
const NETWORK_FACTOR = 16;

interface Budget {
  key: string;
  limit: number;
}

/**
 * Failed client authentications (`invalid_client`) at the token endpoint, counted per caller
 * address (`callerKey`: an IPv6 address by its /64) whatever client id each one names (the
 * per-client-id limit never stops an attacker who rotates ids), and per IPv6 /48 at
 * NETWORK_FACTOR times the limit (a site spreading its failures over its /64s). Once an address or
 * its /48 has failed `RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE` times (16 times that for a /48), every
 * token request from it is 429 until the window ends, also one with valid credentials (else a
 * correct guess would still be told apart).
 *
 * Only failures are counted, once they are known: not a request in flight, not a token issued,
 * not a refusal before the client was authenticated, not this limit's own 429s. So an address
 * that never fails is never refused here, however many requests it sends at once.
 *
 * Counting after the fact leaves a gap between the check and the count that concurrent attempts
 * could all pass: at most `limit` token requests of one address (16 times that of a /48) are
 * checked and handled at once in this process, the others wait their turn (never refused for it),
 * and a request keeps its turn until its failure is counted. A window can so be overshot by less
 * than the limit per process.
 */
@Injectable()
export class ClientAuthFailuresInterceptor implements NestInterceptor {
  private readonly logger = new Logger('ClientAuthFailures');
  private readonly limit: number;
  private readonly turns = new KeyedSlots();

  constructor(
    config: AppConfig,
    private readonly store: RateLimitStore,
    @Inject(HTTP_PLATFORM) private readonly platform: HttpPlatform,
  ) {
    this.limit = config.RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE;
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<HttpRequest>();
    if (this.limit === 0 || !isTokenRequest(this.platform, req)) return next.handle();
    const address = countedAddress(req);
    const budgets: Budget[] = [{ key: callerKey(address), limit: this.limit }];
    const network = callerNetworkKey(address);
    if (network !== undefined) budgets.push({ key: network, limit: this.limit * NETWORK_FACTOR });
    const releases: Array<() => void> = [];
    const release = () => releases.forEach((done) => done());
    try {
      // always the address first, then its network: no two requests wait for each other's turn
      for (const { key, limit } of budgets) releases.push(await this.turns.acquire(key, limit));
      await this.refuseIfSpent(budgets);
    } catch (err) {
      release();
      throw err;
    }
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!(error instanceof OAuthError && error.error === 'invalid_client')) {
          return throwError(() => error);
        }
        return from(this.failed(budgets)).pipe(concatMap(() => throwError(() => error)));
      }),
      finalize(release),
    );
  }

  private async refuseIfSpent(budgets: Budget[]): Promise<void> {
    for (const { key, limit } of budgets) {
      const { hits, msLeft } = await this.store.storage.peek(key, THROTTLER);
      if (hits >= limit) throw new RateLimitedError(Math.max(1, Math.ceil(msLeft / 1000)));
    }
  }

  /** Counts a failure; a counter store that fails does not change the answer (the 401 stands). */
  private async failed(budgets: Budget[]): Promise<void> {
    try {
      for (const { key, limit } of budgets) {
        await this.store.storage.increment(key, MINUTE, limit, MINUTE, THROTTLER);
      }
    } catch (err) {
      this.logger.warn(
        { err },
        'failed client authentication not counted: the counter store failed',
      );
    }
  }
}
