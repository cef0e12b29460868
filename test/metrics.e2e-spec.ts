import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { call } from './support/http.js';

describe('Prometheus metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts requests by route pattern and status, never by raw path', async () => {
    await call(t.baseUrl, 'GET', '/health/live');
    await call(t.baseUrl, 'GET', '/health/live');
    await call(t.baseUrl, 'GET', '/documents/12345');
    const res = await call(t.baseUrl, 'GET', '/metrics');
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
    const res = await call(t.baseUrl, 'GET', '/metrics');
    expect(res.text).toMatch(/^webhook_outbox_backlog 0$/m);
    expect(res.text).toMatch(/^webhook_outbox_oldest_due_age_seconds 0$/m);
    expect(res.text).toContain('# TYPE webhook_deliveries gauge');
  });
});
