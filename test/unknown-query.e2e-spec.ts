import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createProject } from './support/read-factories.js';

/** Issue 18 item 8: an unknown query parameter is 400 on every route, naming it. */
describe('unknown query parameters', () => {
  let t: TestApp;
  let auth: string;
  let projectId: number;
  beforeAll(async () => {
    t = await startTestApp();
    const caller = await createCaller(t.app);
    auth = caller.auth;
    projectId = await createProject(t.app, caller.tenantId);
  });
  afterAll(async () => {
    await t.close();
  });

  function expectUnknown(res: Awaited<ReturnType<typeof call>>, ...names: string[]): void {
    expect({ status: res.status, code: res.body?.code }).toEqual({
      status: 400,
      code: 'validation_failed',
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual(
      names.map((field) => ({ field, message: 'is not a query parameter of this route' })),
    );
  }

  it.each([
    ['GET', '/projects?limit=5&limt=10', ['limt']],
    ['GET', '/webhook-deliveries?page=2', ['page']],
    // routes that take no query at all
    ['GET', '/webhooks?sort=name', ['sort']],
    ['GET', '/projects/{projectId}?expand=all', ['expand']],
    ['GET', '/projects/{projectId}/documents?x=1&y=2&x=3', ['x', 'y']],
    ['POST', '/webhooks?dry_run=true', ['dry_run']],
    ['GET', '/projects?__proto__[x]=1', ['__proto__[x]']],
  ])('%s %s is 400 naming the parameter', async (method, path, names) => {
    const res = await call(t.baseUrl, method, path.replace('{projectId}', String(projectId)), {
      auth,
      body:
        method === 'POST'
          ? { name: 'x', endpoint_url: 'https://e.example/', events: ['*'] }
          : undefined,
    });
    withMessage(`${method} ${path}`, () => expectUnknown(res, ...names));
  });

  it('checks the caller first: without a token 401, and an unknown route stays 404', async () => {
    expect((await call(t.baseUrl, 'GET', '/webhooks?x=1')).status).toBe(401);
    expect((await call(t.baseUrl, 'GET', '/no-such-route?x=1', { auth })).status).toBe(404);
  });

  it('the token endpoint refuses one in its own error shape', async () => {
    const res = await call(t.baseUrl, 'POST', '/oauth/token?client_secret=gcs_x', {
      body: { grant_type: 'client_credentials' },
    });
    expect({ status: res.status, error: res.body?.error }).toEqual({
      status: 400,
      error: 'invalid_request',
    });
  });

  it('declared parameters still pass', async () => {
    expect((await call(t.baseUrl, 'GET', '/projects?limit=5&offset=0', { auth })).status).toBe(200);
    expect((await call(t.baseUrl, 'GET', '/webhook-deliveries?limit=5', { auth })).status).toBe(
      200,
    );
  });

  it('probes, metrics and the documentation take any query', async () => {
    for (const path of ['/health/live?ts=1', '/health/ready?ts=1']) {
      const res = await call(t.baseUrl, 'GET', path);
      withMessage(path, () => expect(res.status).toBe(200));
    }
    const metrics = await call(t.baseUrl, 'GET', '/metrics?x=1', {
      auth: `Bearer ${t.config.METRICS_TOKEN}`,
    });
    expect(metrics.status).toBe(200);
    for (const path of ['/openapi.json?v=2', '/docs/?x=1']) {
      const res = await call(t.baseUrl, 'GET', path);
      withMessage(path, () => expect(res.status).toBe(200));
    }
  });

  it('says the real bound of offset', async () => {
    for (const offset of ['1000000000000000', '2147483648', '-1']) {
      const res = await call(t.baseUrl, 'GET', `/projects?offset=${offset}`, { auth });
      withMessage(offset, () =>
        expect({ status: res.status, errors: res.body?.errors }).toEqual({
          status: 400,
          errors: [{ field: 'offset', message: 'must be an integer from 0 to 2147483647' }],
        }),
      );
    }
    expect((await call(t.baseUrl, 'GET', '/projects?offset=2147483647', { auth })).status).toBe(
      200,
    );
  });
});
