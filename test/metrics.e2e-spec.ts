import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { createCaller } from './support/factories.js';
import { call } from './support/http.js';
import { type ServiceProcess, startService } from './support/service-process.js';

/** What a client gets for `path` (an unknown path outside /api/v1 as a whole URL): status, problem code, content type. */
async function answer(baseUrl: string, path: string, auth?: string) {
  const res = await call(baseUrl, 'GET', path, auth === undefined ? {} : { auth });
  return {
    status: res.status,
    code: (res.body as { code?: string } | null)?.code,
    type: res.headers.get('content-type'),
  };
}

describe('Prometheus metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    // startTestApp sets a METRICS_TOKEN of its own: /metrics is served on the API port with it
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts requests by route pattern and status, never by raw path', async () => {
    await call(t.baseUrl, 'GET', '/health/live');
    await call(t.baseUrl, 'GET', '/health/live');
    await call(t.baseUrl, 'GET', '/documents/12345');
    const res = await t.scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const live =
      /http_requests_total\{method="GET",route="\/health\/live",status="200"\} (\d+)/.exec(
        res.text,
      );
    expect(Number(live?.[1])).toBeGreaterThanOrEqual(2);
    expect(res.text).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health\/live",status="200"\}/,
    );
    // in no label: a sample's value may hold the digits (nodejs_heap_size_total_bytes 1271234560)
    const labelValues = [...res.text.matchAll(/="([^"]*)"/g)].map((m) => m[1]!);
    expect(labelValues.length).toBeGreaterThan(0);
    expect(labelValues.filter((value) => value.includes('12345'))).toEqual([]);
  });

  it('reports the outbox backlog and the age of the oldest due delivery', async () => {
    const res = await t.scrape();
    expect(res.text).toMatch(/^webhook_outbox_backlog 0$/m);
    expect(res.text).toMatch(/^webhook_outbox_oldest_due_age_seconds 0$/m);
    expect(res.text).toContain('# TYPE webhook_deliveries gauge');
  });

  it('does not tell the Node version', async () => {
    const { text } = await t.scrape();
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).not.toContain('nodejs_version_info');
    expect(text).not.toContain(process.version.slice(1));
  });

  it('refuses a scrape without the metrics token, with another, or with a tenant credential', async () => {
    const caller = await createCaller(t.app);
    for (const auth of [
      undefined,
      `Bearer ${randomBytes(24).toString('base64url')}`,
      `Bearer ${t.config.METRICS_TOKEN}x`,
      `Basic ${Buffer.from(`metrics:${t.config.METRICS_TOKEN}`).toString('base64')}`,
      caller.auth,
    ]) {
      const res = await call(t.baseUrl, 'GET', '/metrics', auth === undefined ? {} : { auth });
      expect({
        status: res.status,
        code: res.body?.code,
        type: res.headers.get('content-type'),
        requestId: res.body?.request_id === res.headers.get('x-request-id'),
        sample: res.text.includes('process_cpu'),
      }).toEqual({
        status: 401,
        code: 'unauthenticated',
        type: expect.stringMatching(/^application\/problem\+json/),
        requestId: true,
        sample: false,
      });
    }
    expect(
      (await call(t.baseUrl, 'GET', '/metrics', { auth: `bearer ${t.config.METRICS_TOKEN}` }))
        .status,
    ).toBe(200);
  });
});

describe('/metrics on the API port without METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: '' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('is answered as any unknown route, with a tenant credential or without', async () => {
    const caller = await createCaller(t.app);
    expect(await answer(t.baseUrl, '/metrics')).toEqual(
      await answer(t.baseUrl, `${t.baseUrl}/metricz`),
    );
    expect(await answer(t.baseUrl, '/metrics')).toMatchObject({ status: 404, code: 'not_found' });
    expect(await answer(t.baseUrl, '/metrics', caller.auth)).toEqual(
      await answer(t.baseUrl, `${t.baseUrl}/metricz`, caller.auth),
    );
    expect(await answer(t.baseUrl, '/metrics', caller.auth)).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('/metrics on listeners of their own (the service as npm start runs it)', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
    // neither METRICS_TOKEN nor METRICS_PORT: the platform listener's only (a free port here)
    service = await startService({
      ...database.env,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    });
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await database.drop();
  });

  it('serves GET /metrics on the platform listener and on METRICS_PORT, not on the API port', async () => {
    expect(service.platformPort).toEqual(expect.any(Number));
    expect(service.metricsPort).toEqual(expect.any(Number));
    for (const port of [service.platformPort!, service.metricsPort!]) {
      const res = await fetch(`http://127.0.0.1:${port}/metrics?x=1`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toContain('process_resident_memory_bytes');
      expect(text).not.toContain('nodejs_version_info');
    }
    expect(await answer(service.baseUrl, '/metrics')).toEqual(
      await answer(service.baseUrl, `${service.baseUrl}/metricz`),
    );
    expect(await answer(service.baseUrl, '/metrics')).toMatchObject({ status: 404 });
  });

  it('answers anything else there with problem details', async () => {
    for (const port of [service.platformPort!, service.metricsPort!]) {
      const other = await fetch(`http://127.0.0.1:${port}/api/v1/projects`);
      expect(other.status).toBe(404);
      expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await other.json()) as { code: string; request_id: string };
      expect(body.code).toBe('not_found');
      expect(body.request_id).toBe(other.headers.get('x-request-id'));
      const post = await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' });
      expect({ status: post.status, allow: post.headers.get('allow') }).toEqual({
        status: 405,
        allow: 'GET, HEAD',
      });
      expect(((await post.json()) as { code: string }).code).toBe('method_not_allowed');
    }
  });
});

describe('PLATFORM_API_PORT=off', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService({
      ...database.env,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      PLATFORM_API_PORT: 'off',
      LOG_LEVEL: 'warn',
    });
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await database.drop();
  });

  it('starts no platform listener, and then serves /metrics nowhere', async () => {
    expect(service.platformPort).toBeUndefined();
    expect(service.metricsPort).toBeUndefined();
    expect(await answer(service.baseUrl, '/metrics')).toMatchObject({ status: 404 });
  });
});

describe('a platform listener port already taken', () => {
  it('stops start-up with a message naming PLATFORM_API_PORT', async () => {
    const database = await createTestDatabase();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const started = startService({
        ...database.env,
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        PLATFORM_API_PORT: String(port),
        LOG_LEVEL: 'warn',
      });
      await expect(started).rejects.toThrow(`PLATFORM_API_PORT=${port} on 127.0.0.1`);
    } finally {
      holder.close();
      await database.drop();
    }
  }, 90_000);
});
