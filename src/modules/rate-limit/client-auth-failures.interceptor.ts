import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { catchError, concatMap, from, map, type Observable, of, throwError } from 'rxjs';
import { AppConfig } from '../../common/config/app-config.js';
import { OAuthError } from '../../common/http/oauth-error.js';
import type { HttpPlatform, HttpRequest } from '../../common/http/platform/http-platform.js';
import { HTTP_PLATFORM } from '../../common/http/platform/http-platform.module.js';
import { callerKey } from './caller-key.js';
import { isTokenRequest } from './rate-limit.guard.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited.error.js';

/** The storages' namespace of these counters (beside the guard's `api` and `token`). */
const THROTTLER = 'token-failures';
const MINUTE = 60_000;

/**
 * Failed client authentications at the token endpoint, counted per caller address (`callerKey`:
 * an IPv6 address by its /64) whatever client id each one names (issue 18 item 5: the
 * per-client-id limit never stops an attacker who rotates ids). Past `RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE` every token request from that address is 429
 * until the window ends, also one with valid credentials (else a correct guess would still be
 * told apart).
 *
 * Each request is counted as a failure before it is handled and taken back once it turns out not
 * to be one (a token issued, or a refusal before the client was authenticated, e.g. a wrong
 * `grant_type`): concurrent attempts cannot all pass one check-then-count gap, on the memory and
 * the Redis store alike.
 */
@Injectable()
export class ClientAuthFailuresInterceptor implements NestInterceptor {
  private readonly limit: number;

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
    const key = callerKey(req.ip);
    const { storage } = this.store;
    const { isBlocked, timeToBlockExpire, timeToExpire } = await storage.increment(
      key,
      MINUTE,
      this.limit,
      MINUTE,
      THROTTLER,
    );
    if (isBlocked) throw new RateLimitedError(Math.max(1, timeToBlockExpire || timeToExpire));
    const notAFailure = () => storage.decrement(key, THROTTLER);
    return next.handle().pipe(
      concatMap((body: unknown) => from(notAFailure()).pipe(map(() => body))),
      catchError((error: unknown) => {
        const failed = error instanceof OAuthError && error.error === 'invalid_client';
        const settled = failed ? of(undefined) : from(notAFailure());
        return settled.pipe(concatMap(() => throwError(() => error)));
      }),
    );
  }
}
