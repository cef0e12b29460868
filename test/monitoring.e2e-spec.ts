import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';

const MONITORING = resolve(import.meta.dirname, '../deploy/monitoring');
/** Series Prometheus itself makes for every target, not the service. */
const PROMETHEUS_OWN = new Set(['up']);

/** Every selector's metric name in PromQL text (each query names its metrics as `name{…}`). */
function metricNames(promql: string[]): Set<string> {
  const names = new Set<string>();
  for (const expr of promql) {
    for (const m of expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)) names.add(m[1]!);
  }
  return names;
}

function dashboardQueries(): string[] {
  const dashboard = JSON.parse(
    readFileSync(`${MONITORING}/grafana/grc-integration-api.json`, 'utf8'),
  ) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
}

function ruleQueries(): string[] {
  // the rules file's `expr:` values, single-line or folded blocks (`|`)
  const text = readFileSync(`${MONITORING}/prometheus/alerts.yaml`, 'utf8');
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    if (m[2] !== '|') {
      out.push(m[2]!);
      continue;
    }
    const block: string[] = [];
    while (i + 1 < lines.length && /^\s{10,}\S/.test(lines[i + 1]!)) block.push(lines[++i]!);
    out.push(block.join('\n'));
  }
  return out;
}

/** The sample names a scrape can carry, from its `# TYPE` lines (a histogram's three series). */
function exportedNames(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const m of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m;
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name! + s);
    else names.add(name!);
  }
  return names;
}

/** The dashboard and the alert rules name only metrics the service exports. */
describe('monitoring: dashboard and alert rules over the exported metrics', () => {
  let t: TestApp;
  let exported: Set<string>;
  let text: string;

  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.scrape();
    expect(res.status).toBe(200);
    text = res.text;
    exported = exportedNames(text);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('every metric the dashboard queries is exported', () => {
    const used = metricNames(dashboardQueries());
    // traffic, latency, errors, outbox lag, outcomes, in flight, pool use and event-loop delay
    for (const name of [
      'http_requests_total',
      'http_request_duration_seconds_bucket',
      'webhook_outbox_oldest_due_age_seconds',
      'webhook_deliveries',
      'webhook_endpoint_in_flight_max',
      'db_pool_connections',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(used).toContain(name);
    }
    expect([...used].filter((n) => !exported.has(n))).toEqual([]);
  });

  it('every metric an alert rule names is exported (or is Prometheus’s own)', () => {
    const used = metricNames(ruleQueries());
    expect(used.size).toBeGreaterThanOrEqual(8);
    expect([...used].filter((n) => !exported.has(n) && !PROMETHEUS_OWN.has(n))).toEqual([]);
  });

  it('the pool gauges read this process’s pool', () => {
    const value = (series: string) =>
      Number(new RegExp(`^${series} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    expect(value('db_pool_max_connections')).toBe(t.config.DATABASE_POOL_SIZE);
    expect(value('db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
    // the scrape's own reads may be waiting for a connection of the test's small pool
    expect(value('db_pool_waiting')).toBeGreaterThanOrEqual(0);
  });
});
