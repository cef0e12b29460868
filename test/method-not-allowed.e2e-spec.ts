import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { fillPath, loadRouteTable } from './support/route-table.js';

/** Methods a client may try on any path; none of the API's routes takes the last four. */
const TRIED = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY', 'PROPFIND'];

/**
 * A method a known path does not take is 405 `method_not_allowed` with `Allow` (RFC 9110
 * §15.5.6), as problem details; under /api/v1 it is answered where an unknown route is: after
 * authentication. Runs on the adapter `HTTP_ADAPTER` names.
 */
describe('a method a known path does not take', () => {
  let t: TestApp;
  let caller: TestCaller;

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app);
  });
  afterAll(async () => t?.close());

  it('is 405 with Allow on every published path, for every other method', async () => {
    const operations = await loadRouteTable(t.baseUrl);
    const byPath = new Map<string, Set<string>>();
    for (const op of operations) {
      const path = fillPath(op.template, Object.fromEntries(op.pathParams.map((p) => [p, '1'])));
      byPath.set(path, (byPath.get(path) ?? new Set()).add(op.method));
    }
    expect(byPath.size).toBeGreaterThan(10);
    for (const [path, methods] of byPath) {
      const allowed = methods.has('GET') ? new Set([...methods, 'HEAD']) : methods;
      const expected = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) =>
        allowed.has(m),
      );
      for (const method of TRIED.filter((m) => !allowed.has(m))) {
        const res = await call(t.baseUrl, method, path, { auth: caller.auth });
        withMessage(`${method} ${path} → ${res.status} ${res.text}`, () => {
          expect(res.status).toBe(405);
          expect(res.headers.get('allow')).toBe(expected.join(', '));
          expect(res.headers.get('x-request-id')).toBeTruthy();
          if (method === 'HEAD') {
            expect(res.text).toBe('');
          } else if (path === '/oauth/token') {
            // the token endpoint speaks RFC 6749 only
            expect(res.body).toMatchObject({ error: 'invalid_request' });
          } else {
            expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(res.body).toMatchObject({
              status: 405,
              code: 'method_not_allowed',
              type: 'urn:problem:method_not_allowed',
              request_id: res.headers.get('x-request-id'),
            });
          }
        });
      }
    }
  });

  it('is answered after authentication under /api/v1, like an unknown route', async () => {
    for (const [method, path] of [
      ['PUT', '/projects'],
      ['DELETE', '/webhooks/1'],
      ['GET', '/documents/1/checkout'],
      ['OPTIONS', '/projects'],
      // Fastify refused a QUERY without Content-Type with a 400 before any guard
      ['QUERY', '/projects'],
      ['PROPFIND', '/webhooks'],
    ] as const) {
      const anonymous = await call(t.baseUrl, method, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('allow')).toBeNull();
      const wrongToken = await call(t.baseUrl, method, path, { auth: 'Bearer gat_nothing' });
      expect(wrongToken.status).toBe(401);
      expect(wrongToken.body.code).toBe('invalid_token');
      expect((await call(t.baseUrl, method, path, { auth: caller.auth })).status).toBe(405);
    }
  });

  it('names the methods in a fixed order, HEAD wherever GET is, and keeps HEAD a GET', async () => {
    const webhook = await call(t.baseUrl, 'DELETE', '/webhooks/1', { auth: caller.auth });
    expect(webhook.headers.get('allow')).toBe('GET, HEAD, PATCH');
    expect(webhook.body.detail).toBe(
      'DELETE is not allowed on this path (allowed: GET, HEAD, PATCH)',
    );
    // a HEAD where only POST is: the 405 without a body
    const head = await call(t.baseUrl, 'HEAD', '/documents/1/checkout', { auth: caller.auth });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    expect(head.text).toBe('');
    // HEAD where GET is is never a 405
    expect((await call(t.baseUrl, 'HEAD', '/projects', { auth: caller.auth })).status).toBe(200);
    // a trailing slash and a query are the same path
    const slash = await call(t.baseUrl, 'PATCH', '/projects/?limit=1', { auth: caller.auth });
    expect(slash.status).toBe(405);
    expect(slash.headers.get('allow')).toBe('GET, HEAD');
  });

  it('leaves unknown paths, the API root among them, to the 404', async () => {
    for (const path of ['', '/', '/nowhere', '/projects/1/nothing', '/documents/1/checkout/x']) {
      for (const method of ['GET', 'PUT', 'OPTIONS']) {
        const res = await call(t.baseUrl, method, path, { auth: caller.auth });
        withMessage(`${method} ${path} → ${res.status}`, () => {
          expect(res.status).toBe(404);
          expect(res.headers.get('allow')).toBeNull();
        });
      }
    }
    // outside /api/v1 no guard runs: an unknown path is 404 at once
    expect((await call(t.baseUrl, 'PUT', `${t.baseUrl}/no-such-path`)).status).toBe(404);
  });

  it('is 405 at once on the public paths outside /api/v1, which no guard precedes', async () => {
    for (const path of ['/health/live', '/health/ready']) {
      for (const method of ['POST', 'DELETE', 'OPTIONS']) {
        const res = await call(t.baseUrl, method, path);
        withMessage(`${method} ${path} → ${res.status} ${res.text}`, () => {
          expect(res.status).toBe(405);
          expect(res.headers.get('allow')).toBe('GET, HEAD');
          expect(res.body).toMatchObject({ code: 'method_not_allowed' });
        });
      }
    }
  });
});
