import { type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type {
  HttpPlatform,
  HttpRequest as Request,
  HttpResponse,
} from '../../common/http/platform/http-platform.js';
import { HTTP_PLATFORM } from '../../common/http/platform/http-platform.module.js';
import type { Principal } from '../../common/access/principal.js';
import { TOKEN_ROUTE } from '../../common/http/token-route.js';
import { RateLimitedError } from './rate-limited.error.js';
import { callerKey } from './caller-key.js';
import { countedAddress } from '../../common/http/client-address.js';

export function isTokenRequest(platform: HttpPlatform, req: Request): boolean {
  return platform.routeOf(req) === TOKEN_ROUTE;
}

/** The client id of a token request, from HTTP Basic or the body; never the secret. */
function tokenClientId(req: Request): string {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (basic?.[1]) {
    const id = Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0] ?? '';
    try {
      return decodeURIComponent(id).slice(0, 80);
    } catch {
      // not valid percent-encoding: the token endpoint refuses it (401); count it as sent
      return id.slice(0, 80);
    }
  }
  const body = req.body as { client_id?: unknown } | undefined;
  return typeof body?.client_id === 'string' ? body.client_id.slice(0, 80) : '-';
}

/**
 * One budget per tracker, whatever the route: the credential (`client:3`, `pat:7`) for API calls,
 * the client id and caller address (`callerKey`) for token requests. The limit is "requests per credential per
 * minute", not per route; the storages namespace keys by throttler name themselves.
 */
function trackerOf(req: Request & { user?: Principal }): string {
  if (req.user) return req.user.credential.ref;
  return `${tokenClientId(req)}|${callerKey(countedAddress(req))}`;
}

/**
 * Runs after authentication: API calls are counted per credential, token requests per client id
 * and caller IP; documentation, health and metrics are not limited.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  // a property: the constructor is the library's, with its own injection tokens
  @Inject(HTTP_PLATFORM) private readonly platform!: HttpPlatform;

  /**
   * The library's version looks up five per-route decorator overrides and resolves three possibly
   * asynchronous values for every throttler on every request (about ten awaits and ten metadata
   * reads); this service declares no per-route overrides (`@Throttle`, `@SkipThrottle` are not
   * used) and only numeric limits, so it goes straight to the throttlers that apply, with one
   * await (the storage). Same storage, same headers, same 429 as the library's `handleRequest`.
   * On the issue-3 pair (bench 3a/3b) the library's version cost about a tenth of an
   * authenticated request.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { user?: Principal }>();
    const reply = http.getResponse<HttpResponse>();
    if (!request.user && !isTokenRequest(this.platform, request)) return true;
    for (const throttler of this.throttlers) {
      if (throttler.skipIf?.(context)) continue;
      const { limit, ttl } = throttler;
      // a resolvable (function) limit would need the library's full path
      if (typeof limit !== 'number' || typeof ttl !== 'number') return super.canActivate(context);
      const key = trackerOf(request);
      const name = throttler.name ?? 'default';
      const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } =
        await this.storageService.increment(key, ttl, limit, ttl, name);
      if (isBlocked) {
        throw new RateLimitedError(Math.max(1, timeToBlockExpire || timeToExpire));
      }
      const suffix = `-${name}`;
      reply.header(`${this.headerPrefix}-Limit${suffix}`, limit);
      reply.header(`${this.headerPrefix}-Remaining${suffix}`, Math.max(0, limit - totalHits));
      reply.header(`${this.headerPrefix}-Reset${suffix}`, timeToExpire);
    }
    return true;
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    return !req.user && !isTokenRequest(this.platform, req);
  }

  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    return Promise.resolve(trackerOf(req as unknown as Request & { user?: Principal }));
  }

  /**
   * One budget per tracker (credential, or client id and IP), whatever the route: the limit is
   * "requests per credential per minute", not per route. The library's default key also names the
   * controller and handler (and hashes it); the storages namespace by throttler name themselves.
   */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    _name?: string,
  ): string {
    return tracker;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new RateLimitedError(Math.max(1, detail.timeToBlockExpire || detail.timeToExpire));
  }
}
