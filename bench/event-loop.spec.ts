import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { LOOP_P99_METRIC, LoopDelayWindow, loopP99Ms, metricValue } from './event-loop.js';

const sample = [
  '# HELP nodejs_eventloop_lag_p90_seconds The 90th percentile of the recorded event loop delays.',
  '# TYPE nodejs_eventloop_lag_p90_seconds gauge',
  'nodejs_eventloop_lag_p90_seconds 0.0105',
  '# HELP nodejs_eventloop_lag_p99_seconds_total not the gauge: a longer name',
  'nodejs_eventloop_lag_p99_seconds_total 9',
  '# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.',
  '# TYPE nodejs_eventloop_lag_p99_seconds gauge',
  'nodejs_eventloop_lag_p99_seconds 0.025165823',
  '',
].join('\n');

describe('reading the event-loop p99 from a Prometheus scrape', () => {
  it('takes the gauge by its exact name, in milliseconds', () => {
    expect(loopP99Ms(sample)).toBeCloseTo(25.165823, 6);
    expect(metricValue(sample, 'nodejs_eventloop_lag_p90_seconds')).toBe(0.0105);
  });

  it('accepts labels and a timestamp, and skips comment lines', () => {
    const text = [
      `# HELP ${LOOP_P99_METRIC} x`,
      `${LOOP_P99_METRIC}{instance="a",le="1"} 1.5e-2 1764300000000`,
    ].join('\n');
    expect(loopP99Ms(text)).toBeCloseTo(15, 9);
  });

  it('is undefined when the gauge is missing or not a number', () => {
    expect(loopP99Ms('process_cpu_seconds_total 3\n')).toBeUndefined();
    expect(loopP99Ms(`${LOOP_P99_METRIC} NaN\n`)).toBeUndefined();
    expect(loopP99Ms(`${LOOP_P99_METRIC}_total 4\n`)).toBeUndefined();
  });

  it("reads prom-client's own exposition of its default metrics", async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const p99 = loopP99Ms(await registry.metrics());
    expect(p99).toBeDefined();
    expect(p99!).toBeGreaterThanOrEqual(0);
    registry.clear();
  });
});

describe('a window between two scrapes', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((ok) => server?.close(ok));
    server = undefined;
  });

  /** A /metrics endpoint answering `texts` in turn to the right bearer token. */
  async function serve(texts: string[], seen: string[]): Promise<string> {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      if (req.headers.authorization !== 'Bearer metrics-token-0123456789') {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(texts.shift() ?? '');
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("reports the second scrape's p99, the first one only emptying the histogram", async () => {
    const seen: string[] = [];
    const url = await serve([`${LOOP_P99_METRIC} 0.5\n`, `${LOOP_P99_METRIC} 0.012\n`], seen);
    const window = new LoopDelayWindow(url, 'metrics-token-0123456789');
    await window.begin();
    expect(await window.end()).toBeCloseTo(12, 9);
    expect(window.problem).toBeUndefined();
    expect(window.scrapeMs).toHaveLength(2);
    expect(seen).toEqual([
      'GET /metrics Bearer metrics-token-0123456789',
      'GET /metrics Bearer metrics-token-0123456789',
    ]);
  });

  it('is n/a, with the reason, when the service refuses the scrape', async () => {
    const url = await serve([], []);
    const window = new LoopDelayWindow(url, 'another-token-0123456789');
    await window.begin();
    expect(await window.end()).toBeUndefined();
    expect(window.problem).toBe('GET /metrics answered 401');
  });

  it('is n/a when the scrape has no event-loop gauge', async () => {
    const url = await serve(['up 1\n', 'up 1\n'], []);
    const window = new LoopDelayWindow(url, 'metrics-token-0123456789');
    await window.begin();
    expect(await window.end()).toBeUndefined();
    expect(window.problem).toBe(`no ${LOOP_P99_METRIC} in /metrics`);
  });
});
