import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Request } from 'express';
import type { Principal } from '../auth/principal.js';
import { RateLimitedError } from './rate-limited.error.js';

export function isTokenRequest(req: Request): boolean {
  return req.path === '/api/v1/oauth/token';
}

/** The client id of a token request, from HTTP Basic or the body; never the secret. */
function tokenClientId(req: Request): string {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    return decodeURIComponent(decoded.split(':')[0] ?? '').slice(0, 80);
  }
  const body = req.body as { client_id?: unknown } | undefined;
  return typeof body?.client_id === 'string' ? body.client_id.slice(0, 80) : '-';
}

/**
 * Runs after authentication: API calls are counted per credential, token requests per client id
 * and caller IP; documentation, health and metrics are not limited.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    return !req.user && !isTokenRequest(req);
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const principal = req.user as Principal | undefined;
    if (principal) return principal.credential.ref;
    const r = req as unknown as Request;
    return `${tokenClientId(r)}|${r.ip ?? '-'}`;
  }

  /**
   * One budget per tracker (credential, or client id and IP), whatever the route: the limit is
   * "requests per credential per minute", not per route. The library's default key also names the
   * controller and handler (and hashes it); the storages namespace by throttler name themselves.
   */
  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return tracker;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new RateLimitedError(Math.max(1, detail.timeToBlockExpire || detail.timeToExpire));
  }
}
