import fc from 'fast-check';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, of, throwError } from 'rxjs';
import type { AppConfig } from '../../common/config/app-config.js';
import { OAuthError } from '../../common/http/oauth-error.js';
import type { HttpPlatform, HttpRequest } from '../../common/http/platform/http-platform.js';
import { TOKEN_ROUTE } from '../../common/http/token-route.js';
import { callerKey, callerNetworkKey } from './caller-key.js';
import { ClientAuthFailuresInterceptor } from './client-auth-failures.interceptor.js';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';
import type { RateLimitStore } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited.error.js';

type Outcome = 'token' | 'invalid_client' | 'invalid_request';

const LIMIT = 3;
const storages: MemoryThrottlerStorage[] = [];
afterEach(() => storages.splice(0).forEach((s) => s.close()));

function interceptor(): ClientAuthFailuresInterceptor {
  const storage = new MemoryThrottlerStorage();
  storages.push(storage);
  const platform = { routeOf: () => TOKEN_ROUTE } as unknown as HttpPlatform;
  return new ClientAuthFailuresInterceptor(
    { RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE: LIMIT } as AppConfig,
    { storage } as unknown as RateLimitStore,
    platform,
  );
}

/** One token request from `ip` whose handler ends with `outcome`; what the caller gets. */
async function ask(
  limiter: ClientAuthFailuresInterceptor,
  ip: string,
  outcome: Outcome,
): Promise<Outcome | 'refused'> {
  const req = { ip, socket: { remoteAddress: '127.0.0.1' } } as unknown as HttpRequest;
  const context = {
    switchToHttp: () => ({ getRequest: () => req }),
  } as unknown as ExecutionContext;
  const next: CallHandler = {
    handle: () =>
      outcome === 'token'
        ? of({ access_token: 'x' })
        : throwError(() => new OAuthError(outcome === 'invalid_client' ? 401 : 400, outcome, '-')),
  };
  try {
    await firstValueFrom(await limiter.intercept(context, next));
    return 'token';
  } catch (err) {
    if (err instanceof RateLimitedError) return 'refused';
    if (err instanceof OAuthError) return err.error as Outcome;
    throw err;
  }
}

// a few IPv4 addresses and IPv6 addresses in two /64s of one /48 and one of another
const ADDRESSES = [
  '198.51.100.1',
  '198.51.100.2',
  '::ffff:198.51.100.1',
  '2001:db8:1:1::1',
  '2001:db8:1:1::2',
  '2001:db8:1:2::1',
  '2001:db8:2:1::1',
];

describe('ClientAuthFailuresInterceptor', () => {
  it('refuses exactly the addresses whose /64 or /48 has failed its limit, counting only failures', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            ip: fc.oneof(
              { arbitrary: fc.constantFrom(...ADDRESSES), weight: 1 },
              // any of 80 /64s of one /48: enough failures to spend the /48's budget
              {
                arbitrary: fc
                  .integer({ min: 0, max: 79 })
                  .map((n) => `2001:db8:1:${n.toString(16)}::7`),
                weight: 3,
              },
            ),
            outcome: fc.constantFrom<Outcome>(
              'token',
              'invalid_client',
              'invalid_client',
              'invalid_client',
              'invalid_request',
            ),
          }),
          { minLength: 100, maxLength: 300 },
        ),
        async (attempts) => {
          const limiter = interceptor();
          const failures = new Map<string, number>();
          for (const { ip, outcome } of attempts) {
            const keys = [callerKey(ip), callerNetworkKey(ip)];
            const spent =
              (failures.get(keys[0]!) ?? 0) >= LIMIT ||
              (keys[1] !== undefined && (failures.get(keys[1]) ?? 0) >= LIMIT * 16);
            const answer = await ask(limiter, ip, outcome);
            expect(answer).toBe(spent ? 'refused' : outcome);
            if (answer === 'invalid_client') {
              for (const key of keys) {
                if (key !== undefined) failures.set(key, (failures.get(key) ?? 0) + 1);
              }
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('never refuses an address that does not fail, whatever it sends at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ADDRESSES),
        fc.integer({ min: 1, max: 200 }),
        async (ip, n) => {
          const limiter = interceptor();
          const answers = await Promise.all(
            Array.from({ length: n }, () => ask(limiter, ip, 'token')),
          );
          expect(answers.filter((a) => a !== 'token')).toEqual([]);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('keeps at most the limit of one address in flight and lets fewer than twice it fail', async () => {
    const limiter = interceptor();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => ask(limiter, '198.51.100.9', 'invalid_client')),
    );
    const failed = answers.filter((a) => a === 'invalid_client').length;
    expect(failed).toBeGreaterThanOrEqual(LIMIT);
    expect(failed).toBeLessThan(2 * LIMIT);
    expect(answers.filter((a) => a === 'refused')).toHaveLength(50 - failed);
  });
});
