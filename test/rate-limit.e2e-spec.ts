import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, createClient, createTenant } from './support/factories.js';
import { call } from './support/http.js';

async function hit(t: TestApp, auth: string) {
  return call(t.baseUrl, 'GET', '/no-such-route', { auth });
}

describe('rate limiting', () => {
  describe('in process memory', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMIT_API_PER_MINUTE: '3', RATE_LIMIT_TOKEN_PER_MINUTE: '2' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('limits API calls per credential with 429 rate_limited and Retry-After', async () => {
      const a = await createCaller(t.app);
      const b = await createCaller(t.app);
      const first = await hit(t, a.auth);
      expect(first.status).toBe(404);
      // the budget is announced on every answer
      expect({
        limit: first.headers.get('x-ratelimit-limit-api'),
        remaining: first.headers.get('x-ratelimit-remaining-api'),
        reset: Number(first.headers.get('x-ratelimit-reset-api')),
      }).toEqual({ limit: '3', remaining: '2', reset: expect.any(Number) });
      for (let i = 0; i < 2; i++) expect((await hit(t, a.auth)).status).toBe(404);
      const limited = await hit(t, a.auth);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // another credential has its own budget
      expect((await hit(t, b.auth)).status).toBe(404);
    });

    it('counts a credential once across all routes, not per route', async () => {
      const a = await createCaller(t.app);
      expect((await hit(t, a.auth)).status).toBe(404);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: a.auth })).status).toBe(200);
      expect((await call(t.baseUrl, 'GET', '/webhooks', { auth: a.auth })).status).toBe(200);
      const limited = await call(t.baseUrl, 'GET', '/projects', { auth: a.auth });
      expect({ status: limited.status, code: limited.body?.code }).toEqual({
        status: 429,
        code: 'rate_limited',
      });
    });

    it('authenticates before counting: a request without a token is 401, never 429', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await call(t.baseUrl, 'GET', '/no-such-route')).status).toBe(401);
      }
    });

    it('limits token requests per client id and caller IP', async () => {
      const tenantId = await createTenant(t.app);
      const client = await createClient(t.app, tenantId);
      const other = await createClient(t.app, tenantId);
      const ask = (c: typeof client) =>
        call(t.baseUrl, 'POST', '/oauth/token', {
          body: {
            grant_type: 'client_credentials',
            client_id: c.clientId,
            client_secret: c.clientSecret,
          },
        });
      expect((await ask(client)).status).toBe(200);
      expect((await ask(client)).status).toBe(200);
      const limited = await ask(client);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      // the token endpoint answers in RFC 6749's shape, also when the limiter refuses
      expect(limited.body).toEqual({
        error: 'rate_limited',
        error_description: expect.any(String),
      });
      expect(limited.headers.get('cache-control')).toBe('no-store');
      expect((await ask(other)).status).toBe(200);
    });
  });

  describe('shared through Redis between replicas', () => {
    let one: TestApp;
    let two: TestApp;
    beforeAll(async () => {
      const env = { RATE_LIMIT_API_PER_MINUTE: '4', REDIS_URL: 'redis://127.0.0.1:6379' };
      one = await startTestApp(env);
      two = await startTestApp(env, one.database);
    });
    afterAll(async () => {
      await two.close();
      await one.close();
    });

    it('counts one credential across both instances', async () => {
      const caller = await createCaller(one.app);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await hit(i % 2 ? two : one, caller.auth)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 429, 429]);
    });
  });
});
