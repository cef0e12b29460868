import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isWellFormedToken, mintToken } from '../src/common/crypto/tokens.js';
import { startTestApp, type TestApp } from './support/app.js';
import {
  createCaller,
  createClient,
  createTenant,
  issueToken,
  type TestClient,
} from './support/factories.js';
import { call } from './support/http.js';
import { CredentialAdminService } from '../src/modules/auth/credential-admin.service.js';

async function hit(t: TestApp, auth: string) {
  return call(t.baseUrl, 'GET', '/no-such-route', { auth });
}

/** A token request from `ip` (the apps below trust one proxy hop: X-Forwarded-For is the caller). */
function tokenFrom(
  t: TestApp,
  ip: string,
  client: { clientId: string; clientSecret: string },
  grantType = 'client_credentials',
) {
  return call(t.baseUrl, 'POST', '/oauth/token', {
    body: { grant_type: grantType, client_id: client.clientId, client_secret: client.clientSecret },
    headers: { 'x-forwarded-for': ip },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client id that does not exist, a new one each time (an attacker rotating ids). */
const unknownClient = () => ({ clientId: mintToken('gci'), clientSecret: mintToken('gcs') });

function expectTokenLimited(res: Awaited<ReturnType<typeof call>>): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 429,
    body: { error: 'rate_limited', error_description: expect.any(String) },
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
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

  describe('failed client authentications per caller IP', () => {
    let t: TestApp;
    let client: TestClient;
    beforeAll(async () => {
      t = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE: '3' });
      client = await createClient(t.app, await createTenant(t.app));
    });
    afterAll(async () => {
      await t.close();
    });

    it('limits an address that rotates client ids, whatever ids it names next', async () => {
      const ip = '198.51.100.7';
      for (let i = 0; i < 3; i++) {
        expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      }
      expectTokenLimited(await tokenFrom(t, ip, unknownClient()));
      // a correct guess is refused as well, or the limit would not stop guessing
      expectTokenLimited(await tokenFrom(t, ip, client));
      // another address has its own budget
      expect((await tokenFrom(t, '198.51.100.8', client)).status).toBe(200);
      expect((await tokenFrom(t, '198.51.100.8', unknownClient())).status).toBe(401);
    });

    it('counts wrong secrets of a real client too', async () => {
      const ip = '198.51.100.9';
      const wrong = { clientId: client.clientId, clientSecret: mintToken('gcs') };
      for (let i = 0; i < 3; i++) expect((await tokenFrom(t, ip, wrong)).status).toBe(401);
      expectTokenLimited(await tokenFrom(t, ip, client));
    });

    it('counts an IPv6 caller by its /64, whichever of its addresses it sends from', async () => {
      for (const ip of [
        '2001:db8:7:7::1',
        '2001:db8:7:7:a:b:c:d',
        '2001:db8:7:7:ffff:ffff:ffff:fffe',
      ]) {
        expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      }
      expectTokenLimited(await tokenFrom(t, '2001:db8:7:7::2', client));
      expect((await tokenFrom(t, '2001:db8:7:8::1', client)).status).toBe(200);
    });

    it('counts an IPv6 /48 too, at 16 times the limit, however its failures are spread over /64s', async () => {
      // 48 failures, one from each of 48 /64s of one /48: no /64 reaches its own limit of 3
      for (let subnet = 0; subnet < 48; subnet++) {
        const ip = `2001:db8:1f:${subnet.toString(16)}::1`;
        expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      }
      // the whole /48 is refused, a valid client from a fresh /64 of it too
      expectTokenLimited(await tokenFrom(t, '2001:db8:1f:ff::1', unknownClient()));
      expectTokenLimited(await tokenFrom(t, '2001:db8:1f:fe::1', client));
      expect((await tokenFrom(t, '2001:db8:20:ff::1', client)).status).toBe(200);
    });

    it('counts a caller whose X-Forwarded-For entry is no address under its peer', async () => {
      // the peer here is 127.0.0.1: failures of unknown address are its own
      for (const xff of ['012.1.1.1', 'unknown', '10.1']) {
        expect((await tokenFrom(t, xff, unknownClient())).status).toBe(401);
      }
      expectTokenLimited(await tokenFrom(t, '0x7f.0.0.1', client));
      expectTokenLimited(await tokenFrom(t, '127.0.0.1', client));
      expect((await tokenFrom(t, '198.51.100.13', client)).status).toBe(200);
    });

    it('lets fewer than twice the limit of failures through when they are sent at once', async () => {
      const ip = '198.51.100.11';
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => tokenFrom(t, ip, unknownClient())),
      );
      const statuses = answers.map((res) => res.status);
      const failed = statuses.filter((status) => status === 401).length;
      expect(failed).toBeGreaterThanOrEqual(3);
      expect(failed).toBeLessThan(2 * 3);
      expect(statuses.filter((status) => status === 429).length).toBe(40 - failed);
    });

    it('counts neither tokens issued nor refusals made before the client is authenticated', async () => {
      const ip = '198.51.100.10';
      for (let i = 0; i < 4; i++) {
        expect((await tokenFrom(t, ip, client)).status).toBe(200);
        expect((await tokenFrom(t, ip, unknownClient(), 'password')).status).toBe(400);
      }
      expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      expect((await tokenFrom(t, ip, client)).status).toBe(200);
    });
  });

  describe('failed client authentications and an address that never fails', () => {
    let t: TestApp;
    let client: TestClient;
    beforeAll(async () => {
      // the failure limit at its default (30); the separate per-client-id limit raised (its
      // default, 120 a minute, would refuse these 200 + 31 requests of one client by itself)
      t = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_TOKEN_PER_MINUTE: '1000' });
      client = await createClient(t.app, await createTenant(t.app));
    });
    afterAll(async () => {
      await t.close();
    });

    it('issues 200 tokens asked for at once from one address, then counts only failures', async () => {
      const ip = '198.51.100.70';
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => tokenFrom(t, ip, client)),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // 29 failures (of 30 allowed) do not block it; the 30th does
      for (let i = 0; i < 29; i++)
        expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      expect((await tokenFrom(t, ip, client)).status).toBe(200);
      expect((await tokenFrom(t, ip, unknownClient())).status).toBe(401);
      expectTokenLimited(await tokenFrom(t, ip, client));
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

  describe('failed client authentications shared through Redis', () => {
    let one: TestApp;
    let two: TestApp;
    beforeAll(async () => {
      const env = {
        TRUST_PROXY: '1',
        RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE: '2',
        REDIS_URL: 'redis://127.0.0.1:6379',
      };
      one = await startTestApp(env);
      two = await startTestApp(env, one.database);
    });
    afterAll(async () => {
      await two.close();
      await one.close();
    });

    it('counts one address across both instances, and only its failures', async () => {
      const client = await createClient(one.app, await createTenant(one.app));
      // the counters are namespaced by the database's name, which is new for every test app
      const ip = '203.0.113.1';
      expect((await tokenFrom(one, ip, unknownClient())).status).toBe(401);
      expect((await tokenFrom(two, ip, client)).status).toBe(200);
      expect((await tokenFrom(one, ip, client)).status).toBe(200);
      expect((await tokenFrom(two, ip, unknownClient())).status).toBe(401);
      expectTokenLimited(await tokenFrom(one, ip, unknownClient()));
      expectTokenLimited(await tokenFrom(two, ip, client));
    });
  });
  describe('failed bearer look-ups per caller address', () => {
    let t: TestApp;
    let tenantId: number;
    let client: TestClient;
    beforeAll(async () => {
      // the default AUTH_CACHE_TTL_MS (1 s): what is let through a block is not the cache's doing
      t = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: '3' });
      tenantId = await createTenant(t.app);
      client = await createClient(t.app, tenantId);
    });
    afterAll(async () => {
      await t.close();
    });

    const projectsFrom = (ip: string, token: string) =>
      call(t.baseUrl, 'GET', '/projects', {
        auth: `Bearer ${token}`,
        headers: { 'x-forwarded-for': ip },
      });
    const forged = () => mintToken('gat');

    function expectLimited(res: Awaited<ReturnType<typeof call>>): void {
      expect({ status: res.status, code: (res.body as { code?: string }).code }).toEqual({
        status: 429,
        code: 'rate_limited',
      });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }

    it('refuses an address its unknown credentials after the limit, and still answers known ones', async () => {
      const ip = '198.51.100.20';
      const known = await issueToken(t.app, client);
      const notYetKnown = await issueToken(t.app, client);
      // found once (from anywhere): let through a block for a while, whatever the cache keeps
      expect((await projectsFrom('198.51.100.21', known)).status).toBe(200);
      await sleep(1100);
      for (let i = 0; i < 3; i++) expect((await projectsFrom(ip, forged())).status).toBe(401);
      expectLimited(await projectsFrom(ip, forged()));
      // a valid credential the cache does not know yet is not looked up either
      expectLimited(await projectsFrom(ip, notYetKnown));
      expect((await projectsFrom(ip, known)).status).toBe(200);
      // another address has its own budget
      expect((await projectsFrom('198.51.100.22', forged())).status).toBe(401);
      expect((await projectsFrom('198.51.100.22', await issueToken(t.app, client))).status).toBe(
        200,
      );
    });

    it('lets a credential through a block only while it is still found', async () => {
      const ip = '198.51.100.60';
      const own = await createClient(t.app, tenantId);
      const token = await issueToken(t.app, own);
      expect((await projectsFrom(ip, token)).status).toBe(200);
      await t.app.get(CredentialAdminService).disableClient(own.clientId);
      // past the cache's age, whatever its notification's timing
      await sleep(1100);
      for (let i = 0; i < 3; i++) expect((await projectsFrom(ip, token)).status).toBe(401);
      expectLimited(await projectsFrom(ip, token));
    });

    it('refuses before reading a body, and closes the connection', async () => {
      const ip = '198.51.100.30';
      for (let i = 0; i < 3; i++) expect((await projectsFrom(ip, forged())).status).toBe(401);
      const res = await call(t.baseUrl, 'POST', '/webhooks', {
        auth: `Bearer ${await issueToken(t.app, client)}`,
        headers: { 'x-forwarded-for': ip },
        body: { name: 'x', endpoint_url: 'https://hooks.example.com/x', events: ['*'] },
      });
      expectLimited(res);
      expect(res.headers.get('connection')).toBe('close');
    });

    it('counts a request with a body once, though its body admission and its guard both ask', async () => {
      const ip = '198.51.100.50';
      const token = forged();
      for (let i = 0; i < 2; i++) {
        const res = await call(t.baseUrl, 'POST', '/webhooks', {
          auth: `Bearer ${token}`,
          headers: { 'x-forwarded-for': ip },
          body: { name: 'x', endpoint_url: 'https://hooks.example.com/x', events: ['*'] },
        });
        expect(res.status).toBe(401);
      }
      expect((await projectsFrom(ip, forged())).status).toBe(401);
      expectLimited(await projectsFrom(ip, forged()));
    });

    it('does not count what fails before a look-up (a wrong checksum, no bearer scheme)', async () => {
      const ip = '198.51.100.40';
      // its last character changed, never kept: a forged token ending in 'A' kept its checksum (1 in 62)
      const valid = forged();
      const mistyped = `${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`;
      expect(isWellFormedToken(mistyped, 'gat')).toBe(false);
      for (let i = 0; i < 6; i++) {
        expect((await projectsFrom(ip, mistyped)).status).toBe(401);
        const basic = await call(t.baseUrl, 'GET', '/projects', {
          auth: 'Basic dXNlcjpwYXNz',
          headers: { 'x-forwarded-for': ip },
        });
        expect(basic.status).toBe(401);
      }
      expect((await projectsFrom(ip, forged())).status).toBe(401);
    });

    it('counts an IPv6 caller by its /64', async () => {
      for (const ip of ['2001:db8:5:5::1', '2001:db8:5:5:1:2:3:4', '2001:db8:5:5:ffff::9']) {
        expect((await projectsFrom(ip, forged())).status).toBe(401);
      }
      expectLimited(await projectsFrom('2001:db8:5:5::77', forged()));
      expect((await projectsFrom('2001:db8:5:6::1', forged())).status).toBe(401);
    });

    it('counts an IPv6 /48 too, at 16 times the limit, however its failures are spread over /64s', async () => {
      // 48 failures, one from each of 48 /64s of one /48: no /64 reaches its own limit of 3
      for (let subnet = 0; subnet < 48; subnet++) {
        const ip = `2001:db8:9:${subnet.toString(16)}::1`;
        expect((await projectsFrom(ip, forged())).status).toBe(401);
      }
      expectLimited(await projectsFrom('2001:db8:9:ff::1', forged()));
      expect((await projectsFrom('2001:db8:a:ff::1', forged())).status).toBe(401);
    });
  });
});
