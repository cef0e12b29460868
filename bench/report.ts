import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import type { CpuCost } from './cpu-meter.js';
import { CONNECTIONS } from './harness.js';
import { bound, SOAK_TABLES, type SoakInfo } from './soak-bounds.js';

import { HTTP_ADAPTERS, type HttpAdapterName } from '../src/common/http/platform/http-platform.js';

/** An HTTP server the service runs on (`HTTP_ADAPTER`). */
export type Adapter = HttpAdapterName;

/** The adapters in the order their columns are shown (Express, then Fastify). */
export const ADAPTER_ORDER: readonly Adapter[] = HTTP_ADAPTERS;

export const adapterLabel = (a: Adapter): string => `${a.charAt(0).toUpperCase()}${a.slice(1)}`;

export interface Row {
  id: string;
  name: string;
  /**
   * The adapter the service ran on. For the raw floor (6), which does not go through the service,
   * the adapter whose row 1 it was measured right after (that adapter's ratio to the floor).
   */
  adapter: Adapter;
  available: boolean;
  rps?: number;
  p50?: number;
  p99?: number;
  errors?: number;
  rssMb?: number;
  cpu?: CpuCost;
  /**
   * The service's event-loop delay p99 over the row's measured window, ms (bench/event-loop.ts);
   * undefined ("n/a") for a row without one window of the service (pairs, rounds, row 6, group 9).
   */
  loopP99Ms?: number;
  note: string;
}

/** A row before the adapter it ran on is added. */
export type Measured = Omit<Row, 'adapter'>;

export const unavailable = (id: string, name: string, why: string): Measured => ({
  id,
  name,
  available: false,
  note: `not available: ${why}`,
});

export interface RunInfo {
  startedAt: Date;
  finishedAt?: Date;
  durationSec: number;
  /** Unmeasured load before each measured row (JIT warm-up), seconds. */
  warmupSec: number;
  mode: 'embedded' | 'external';
  loadAvg: number[];
  /** The adapters measured, in the order of BENCH_ADAPTERS (the first also did the cold start). */
  adapters: Adapter[];
  coldStart?: { adapter: Adapter; ms: number };
  /** Every start on the warm data directory, per adapter, in order (spawn → ready, ms). */
  warmStartsMs: Partial<Record<Adapter, number[]>>;
  /** Highest VmHWM of the adapter's service processes, MB. */
  serviceHwmMb: Partial<Record<Adapter, number>>;
  /** An adapter the service could not start on, and why. */
  serviceProblems: string[];
  seed?: { projects: number; versions: number; problems: string[] };
  /** Service settings that differ from production defaults, shown in RESULTS.md. */
  serviceSettings?: string;
  /** The service's Node/V8 flags (those of `npm start`, plus any `BENCH_NODE_ARGS`). */
  nodeFlags?: string;
  /** The soak (9c), when it ran. */
  soak?: SoakInfo;
  /** What the event-loop scrapes around the rows cost (count, median and slowest time). */
  loopScrapes?: string;
}

export interface Target {
  adapter: Adapter;
  scenario: string;
  target: string;
  measured: string;
  status: 'met' | 'not met' | 'not measured';
}

const fmt = (n: number | undefined, digits = 0): string =>
  n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits);

/** Requests/s: a tenth shown below 10/s (the heavy-content rows stage a few per second). */
const fmtRate = (n: number | undefined): string => fmt(n, n !== undefined && n < 10 ? 1 : 0);

const measured = (rows: readonly Row[], id: string, adapter: Adapter): Row | undefined =>
  rows.find((r) => r.id === id && r.adapter === adapter && r.available);

/** Scenario 1 ÷ the raw floor measured right after it, on one adapter. */
export function floorRatio(rows: readonly Row[], adapter: Adapter): number | undefined {
  const r1 = measured(rows, '1', adapter);
  const r6 = measured(rows, '6', adapter);
  return r1?.rps && r6?.rps ? r1.rps / r6.rps : undefined;
}

/** The adapter's service peak RSS: its rows' samples and its processes' VmHWM. */
function peakRss(rows: readonly Row[], info: RunInfo, adapter: Adapter): number | undefined {
  const samples = rows
    .filter((r) => r.adapter === adapter && r.available && r.id !== '6' && r.rssMb !== undefined)
    .map((r) => r.rssMb!);
  const peak = Math.max(...samples, info.serviceHwmMb[adapter] ?? 0);
  return peak > 0 ? peak : undefined;
}

/** The slowest of the adapter's starts on the warm data directory. */
function slowestStart(info: RunInfo, adapter: Adapter): number | undefined {
  const starts = info.warmStartsMs[adapter] ?? [];
  return starts.length ? Math.max(...starts) : undefined;
}

/**
 * Issue 8's targets on Express (the default adapter), Fastify's scenario 1 against the raw floor,
 * and issue 3's auth pair on each adapter. A target whose rows did not run is "not measured".
 */
export function evaluateTargets(rows: readonly Row[], info: RunInfo): Target[] {
  const out: Target[] = [];
  const check = (
    adapter: Adapter,
    scenario: string,
    target: string,
    value: number | undefined,
    ok: (v: number) => boolean,
    shown: (v: number) => string,
  ): void => {
    out.push(
      value === undefined || Number.isNaN(value)
        ? { adapter, scenario, target, measured: '–', status: 'not measured' }
        : {
            adapter,
            scenario,
            target,
            measured: shown(value),
            status: ok(value) ? 'met' : 'not met',
          },
    );
  };
  const times = (v: number): string => `${v.toFixed(2)} ×`;
  const ms = (v: number): string => `${v.toFixed(0)} ms`;
  const perSec = (v: number): string => `${v.toFixed(0)}/s`;

  const e: Adapter = 'express';
  const row = (id: string): Row | undefined => measured(rows, id, e);
  const r1 = row('1');
  check(e, '1', '≥ 0.6 × raw floor (6)', floorRatio(rows, e), (v) => v >= 0.6, times);
  check(e, '1', 'p99 ≤ 50 ms', r1?.p99, (v) => v <= 50, ms);
  check(e, '1', '0 errors', r1?.errors, (v) => v === 0, String);
  const r2 = row('2');
  check(
    e,
    '2',
    '≥ 0.5 × scenario 1',
    r2?.rps && r1?.rps ? r2.rps / r1.rps : undefined,
    (v) => v >= 0.5,
    times,
  );
  check(e, '3', '≥ 1,000 tokens/s', row('3')?.rps, (v) => v >= 1000, perSec);
  check(e, '4', '≥ 800 stagings/s', row('4')?.rps, (v) => v >= 800, perSec);
  check(e, '4', 'p99 ≤ 80 ms', row('4')?.p99, (v) => v <= 80, ms);
  check(e, '5', '≥ 1,000 deliveries/s (5a)', row('5a')?.rps, (v) => v >= 1000, perSec);
  check(e, '5', 'event → first attempt p99 ≤ 250 ms (5b)', row('5b')?.p99, (v) => v <= 250, ms);
  // issue 19: the same targets beside tenant A's 5,000 deliveries on a receiver that never answers
  check(
    e,
    '5',
    "noisy neighbour: B's event → first attempt p99 ≤ 250 ms (5c)",
    row('5c')?.p99,
    (v) => v <= 250,
    ms,
  );
  check(
    e,
    '5',
    'noisy neighbour: healthy endpoint drained at ≥ 1,000 deliveries/s (5d)',
    row('5d')?.rps,
    (v) => v >= 1000,
    perSec,
  );
  check(
    e,
    'all',
    'service RSS ≤ 300 MB',
    peakRss(rows, info, e),
    (v) => v <= 300,
    (v) => {
      return `${v.toFixed(0)} MB`;
    },
  );
  const starts = info.warmStartsMs[e]?.length ?? 0;
  check(
    e,
    'all',
    'start on a warm data directory ≤ 5 s (the slowest start)',
    slowestStart(info, e),
    (v) => v <= 5000,
    (v) => `${(v / 1000).toFixed(2)} s (of ${starts})`,
  );

  const f: Adapter = 'fastify';
  check(f, '1', '≥ 1.0 × raw floor (6)', floorRatio(rows, f), (v) => v >= 1, times);
  check(f, '1', '0 errors', measured(rows, '1', f)?.errors, (v) => v === 0, String);

  // issue 24: lists that stay fast as tenants grow (the big tenant, group 7)
  for (const adapter of ADAPTER_ORDER) {
    const rps = (id: string): number | undefined => measured(rows, id, adapter)?.rps;
    const ratio = (x: string, y: string): number | undefined => {
      const a = rps(x);
      const b = rps(y);
      return a && b ? a / b : undefined;
    };
    check(
      adapter,
      '7b',
      '50-row /projects page, 100,000 projects: within 1.5 × of the 5-project tenant (7a)',
      ratio('7a', '7b'),
      (v) => v <= 1.5,
      (v) => `7a/7b ${v.toFixed(2)} ×`,
    );
    check(
      adapter,
      '7c',
      '1,000-row page of documents: p99 ≤ 100 ms',
      measured(rows, '7c', adapter)?.p99,
      (v) => v <= 100,
      ms,
    );
    check(
      adapter,
      '7e',
      "a cursor walk's last page as fast as its first (deliveries, 7e vs 7d; ≥ 0.9 ×)",
      ratio('7e', '7d'),
      (v) => v >= 0.9,
      times,
    );
    check(
      adapter,
      '7h',
      "a cursor walk's last page as fast as its first (1,000 documents, 7h vs 7c; ≥ 0.9 ×)",
      ratio('7h', '7c'),
      (v) => v >= 0.9,
      times,
    );
  }

  // issue 23: scenario 1 through PgBouncer beside direct (9a, 9b), and the soak (9c)
  for (const adapter of ADAPTER_ORDER) {
    for (const id of ['9a', '9b']) {
      check(adapter, id, '0 errors', measured(rows, id, adapter)?.errors, (v) => v === 0, String);
    }
  }
  const soak = info.soak;
  const soakAdapter = (soak?.adapter ?? info.adapters[0] ?? e) as Adapter;
  const r9c = measured(rows, '9c', soakAdapter);
  for (const table of SOAK_TABLES) {
    const b = soak ? bound(soak, table) : undefined;
    const window =
      table === 'access_tokens'
        ? `ttl + grace, ${soak ? soak.tokenTtlSec + soak.tokenGraceSec : 300} s`
        : `RETENTION_EVENT_SECONDS, ${soak?.eventWindowSec ?? 20} s`;
    check(
      soakAdapter,
      '9c',
      `${table} bounded: ≤ 1.00 × the rows created in the last ${window} + 15 s (+ those before the load), every sample from window + 15 s on (at least ${soak?.minSteadySec ?? 60} s of them)`,
      b?.ratio,
      (v) => v <= 1,
      (v) =>
        `${v.toFixed(2)} × (peak ${b!.peak} rows over ${b!.steadySec.toFixed(0)} s; 2nd half's peak ÷ 1st half's ${b!.halves?.toFixed(2) ?? '–'})`,
    );
  }
  check(
    soakAdapter,
    '9c',
    'read p99 at the end within 1.2 × the start',
    soak ? soak.end.p99 / Math.max(soak.start.p99, 1) : undefined,
    (v) => v <= 1.2,
    (v) => `${v.toFixed(2)} × (${fmt(soak?.start.p99)} → ${fmt(soak?.end.p99)} ms)`,
  );
  check(
    soakAdapter,
    '9c',
    '0 errors (soak requests and reads)',
    r9c?.errors,
    (v) => v === 0,
    String,
  );

  for (const adapter of ADAPTER_ORDER) {
    const a = measured(rows, '3a', adapter);
    const b = measured(rows, '3b', adapter);
    check(
      adapter,
      'issue 3',
      'authenticated trivial route within 25 % of unauthenticated',
      a?.rps && b?.rps ? a.rps / b.rps : undefined,
      (v) => v >= 0.75,
      (v) => `${v.toFixed(2)} × (${fmt(a?.rps)} vs ${fmt(b?.rps)} req/s)`,
    );
  }
  return out;
}

function machine(): string {
  const mem = (totalmem() / 1024 ** 3).toFixed(1);
  return `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${mem} GiB RAM, Linux ${release()}, Node ${process.version}`;
}

/** The commit measured, and whether the working tree differed from it. */
function revision(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const dirty = git(
      'status',
      '--porcelain',
      '--untracked-files=no',
      '--',
      '.',
      ':!bench/RESULTS.md',
    );
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function command(): string {
  const env = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v}`);
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    if (u.password) u.password = '***';
    env.push(`DATABASE_URL=${u.toString()}`);
  }
  const cmd =
    process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'node dist/bench/run.js';
  return [...env, cmd].join(' ');
}

/** The adapters of the run, in column order. */
const columns = (info: RunInfo): Adapter[] =>
  ADAPTER_ORDER.filter((a) => info.adapters.includes(a));

/** Scenario ids in the order they first ran, each named by its first measured row. */
function scenarios(rows: readonly Row[]): { id: string; name: string }[] {
  const ids = [...new Set(rows.map((r) => r.id))];
  return ids.map((id) => ({
    id,
    name: (rows.find((r) => r.id === id && r.available) ?? rows.find((r) => r.id === id))!.name,
  }));
}

/** A row's event-loop delay p99: "n/a" for a measured row without one window of the service. */
const loopCell = (r: Row | undefined): string =>
  !r?.available ? '–' : r.loopP99Ms === undefined ? 'n/a' : fmt(r.loopP99Ms, 1);

/**
 * One line per scenario, one group of columns per adapter: requests/s, p99, the service's CPU per
 * request (the raw floor's own, in row 6), its event-loop delay p99, and row 1's ratio to the raw
 * floor measured right after it; with two adapters, the second's requests/s over the first's.
 */
function sideBySideLines(rows: readonly Row[], info: RunInfo): string[] {
  const cols = columns(info);
  const head = ['#', 'scenario'];
  const align = ['---', '---'];
  for (const a of cols) {
    const l = adapterLabel(a);
    head.push(
      `${l}: req/s`,
      `${l}: p99 ms`,
      `${l}: CPU ms/req`,
      `${l}: loop p99 ms`,
      `${l}: vs raw floor`,
    );
    align.push('---:', '---:', '---:', '---:', '---:');
  }
  const [first, second] = cols;
  if (first && second) {
    head.push(`${adapterLabel(second)} ÷ ${adapterLabel(first)} req/s`);
    align.push('---:');
  }
  const lines = [`| ${head.join(' | ')} |`, `|${align.join('|')}|`];
  for (const { id, name } of scenarios(rows)) {
    const cells = [id, id === '6' ? `${name} (right after each adapter's row 1)` : name];
    for (const a of cols) {
      const r = measured(rows, id, a);
      const ratio = id === '1' ? floorRatio(rows, a) : undefined;
      cells.push(
        fmtRate(r?.rps),
        fmt(r?.p99),
        fmt(r?.cpu?.processMs, 2),
        loopCell(r),
        ratio === undefined ? '' : `**${ratio.toFixed(2)} ×**`,
      );
    }
    if (first && second) {
      const a = measured(rows, id, first)?.rps;
      const b = measured(rows, id, second)?.rps;
      cells.push(a && b ? `${(b / a).toFixed(2)} ×` : '–');
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

/** Per adapter: its starts on the warm data directory and its service's peak RSS. */
function perAdapterLines(rows: readonly Row[], info: RunInfo): string[] {
  const cols = columns(info);
  const starts = (a: Adapter): string => {
    const all = info.warmStartsMs[a] ?? [];
    return all.length ? `${fmt(Math.max(...all))} (${all.map((ms) => fmt(ms)).join(', ')})` : '–';
  };
  return [
    `| | ${cols.map(adapterLabel).join(' | ')} |`,
    `|---|${cols.map(() => '---:').join('|')}|`,
    `| start on a warm data directory, ms: the slowest (every start, in order) | ${cols.map(starts).join(' | ')} |`,
    `| service peak RSS, MB (the highest VmHWM of its processes) | ${cols.map((a) => fmt(peakRss(rows, info, a))).join(' | ')} |`,
  ];
}

function tableLines(rows: readonly Row[]): string[] {
  const lines = [
    '| # | adapter | scenario | req/s | p50 ms | p99 ms | errors | peak RSS MB | vs 6 | CPU ms/req: process | CPU ms/req: PostgreSQL | steal % | loop p99 ms | notes |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const floor = r.id === '1' ? floorRatio(rows, r.adapter) : undefined;
    const ratio = floor === undefined ? '' : `${floor.toFixed(2)} ×`;
    const cpu = `${fmt(r.cpu?.processMs, 2)} | ${fmt(r.cpu?.databaseMs, 2)} | ${fmt(r.cpu?.stealPct)}`;
    const adapter = adapterLabel(r.adapter);
    lines.push(
      r.available
        ? `| ${r.id} | ${adapter} | ${r.name} | ${fmtRate(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.errors)} | ${fmt(r.rssMb)} | ${ratio} | ${cpu} | ${loopCell(r)} | ${r.note} |`
        : `| ${r.id} | ${adapter} | ${r.name} | – | – | – | – | – | | – | – | – | – | ${r.note} |`,
    );
  }
  return lines;
}

function targetLines(targets: readonly Target[]): string[] {
  return [
    '| adapter | scenario | target | measured | status |',
    '|---|---|---|---|---|',
    ...targets.map(
      (t) =>
        `| ${adapterLabel(t.adapter)} | ${t.scenario} | ${t.target} | ${t.measured} | **${t.status}** |`,
    ),
  ];
}

/** The soak's row counts every 30 s (and at the end), and its settings. */
function soakLines(info: RunInfo): string[] {
  const soak = info.soak;
  if (!soak) return [];
  const every = 30;
  // the first sample of every 30-s span, and the last
  const bucket = (t: number | undefined): number => (t === undefined ? -1 : Math.floor(t / every));
  const shown = soak.samples.filter(
    (s, i) => i === soak.samples.length - 1 || bucket(s.t) > bucket(soak.samples[i - 1]?.t),
  );
  // the final sample, taken as the load stops, may fall in the same second as the last shown
  if (shown.length > 1 && shown.at(-2)!.t.toFixed(0) === shown.at(-1)!.t.toFixed(0)) {
    shown.splice(-2, 1);
  }
  return [
    `Soak (9c) on ${adapterLabel(soak.adapter as Adapter)}: ${soak.elapsedSec.toFixed(0)} s of load (BENCH_SOAK=${soak.seconds}), tokens ttl ${soak.tokenTtlSec} s, RETENTION_TOKEN_GRACE_SECONDS=${soak.tokenGraceSec}, RETENTION_EVENT_SECONDS=${soak.eventWindowSec}, RETENTION_INTERVAL_MS=${soak.sweepMs}; read p99 ${fmt(soak.start.p99)} ms at the start (from ${fmt(soak.startAtSec)} s), ${fmt(soak.end.p99)} ms at the end (from ${fmt(soak.endAtSec)} s), ${fmt(soak.start.rps)} and ${fmt(soak.end.rps)} req/s; ${soak.failures} failed soak requests; ${soak.delivered} events delivered.`,
    '',
    `| t s | ${SOAK_TABLES.join(' | ')} | tokens issued | stagings |`,
    `|---:|${SOAK_TABLES.map(() => '---:').join('|')}|---:|---:|`,
    ...shown.map(
      (s) =>
        `| ${s.t.toFixed(0)} | ${SOAK_TABLES.map((t) => s.counts[t]).join(' | ')} | ${s.tokens} | ${s.stagings} |`,
    ),
  ];
}

const coldStartLine = (info: RunInfo): string =>
  info.coldStart
    ? `cold first start (initialises the data directory, migrates): ${fmt(info.coldStart.ms)} ms on ${adapterLabel(info.coldStart.adapter)}`
    : 'cold first start: –';

export function printTable(rows: readonly Row[], targets: readonly Target[], info: RunInfo): void {
  const out = [
    '',
    ...sideBySideLines(rows, info),
    '',
    ...perAdapterLines(rows, info),
    '',
    coldStartLine(info),
    ...info.serviceProblems.map((p) => `service problem: ${p}`),
    ...(info.loopScrapes ? [`event-loop delay: ${info.loopScrapes}`] : []),
    '',
    ...tableLines(rows),
    '',
    ...soakLines(info),
    '',
    ...targetLines(targets),
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

export async function writeResults(
  file: string,
  rows: readonly Row[],
  targets: readonly Target[],
  info: RunInfo,
): Promise<void> {
  const seedProblems = info.seed?.problems.length
    ? info.seed.problems.map((p) => `- seed problem: ${p}`)
    : [];
  const serviceProblems = info.serviceProblems.map(
    (p) => `- service problem: ${p.split('\n')[0]} (see the run's output for the log tail)`,
  );
  const order = info.adapters.map(adapterLabel);
  const md = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (see bench/README.md). Numbers are from the run described here;',
    'the service, its PostgreSQL and the load generator share one machine. Every scenario ran on',
    `each HTTP adapter (${order.join(', ')}) in this one run, in alternation: compare the columns`,
    'of this file with each other, not with another run.',
    '',
    `- Command: \`${command()}\``,
    `- Commit: ${revision()}`,
    `- Date: ${info.startedAt.toISOString()} → ${info.finishedAt?.toISOString() ?? '?'}`,
    `- Machine: ${machine()}`,
    `- Node: ${process.version} (the load generator and the service run on the same binary)`,
    `- Load average before the run (1/5/15 min): ${info.loadAvg.map((l) => l.toFixed(2)).join(' / ')}; after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
    `- Database: ${info.mode === 'embedded' ? 'embedded PostgreSQL in a fresh temporary DATA_DIR' : 'DATABASE_URL server, fresh database for the run'}, shared by both adapters`,
    `- HTTP adapters: ${info.adapters.map((a) => `HTTP_ADAPTER=${a}`).join(', ')}; the service runs on one at a time, restarted on the other between them. Each scenario (or pair) runs on every adapter in turn, and which goes first alternates from one scenario to the next (${order.join(' ')}, ${[...order].reverse().join(' ')}, …), so the later one is not always the same`,
    `- Service settings: ${info.serviceSettings ?? 'defaults'}`,
    `- Service Node flags: ${info.nodeFlags ?? 'none'}`,
    ...(info.loopScrapes ? [`- Event-loop delay: ${info.loopScrapes}`] : []),
    `- Load: autocannon, ${CONNECTIONS} connections, ${info.durationSec} s per scenario and adapter, each after ${info.warmupSec} s of the same load unmeasured (JIT warm-up, also after a restart; the 3a/3b pair: one round of each)`,
    `- Seed: 1 enterprise tenant, 1 client with all scopes, ${info.seed?.projects ?? 0} projects, 1 document with ${info.seed?.versions ?? 0} versions`,
    ...seedProblems,
    ...serviceProblems,
    `- ${coldStartLine(info).replace(/^cold/, 'Cold')}; every later start is on the warm data directory (below)`,
    '',
    '## Side by side',
    '',
    ...sideBySideLines(rows, info),
    '',
    'CPU ms/req: CPU time of the service process (row 6: of the raw floor process) per request;',
    'row 5a per delivery, 5b per event. loop p99: the service’s event-loop delay p99 over the row’s',
    'measured window (`nodejs_eventloop_lag_p99_seconds` of /metrics, scraped right before and right',
    'after it; the 10 ms sampling interval included, so an idle loop reads ~10); n/a for rows without',
    'one window of the service (alternating pairs and rounds, row 6, group 9). vs raw floor: row 1 ÷',
    'the raw floor (6) measured right after',
    'that adapter’s row 1 (the floor does not go through the service; the adapter’s service is idle',
    'while it runs). On row 6 the last column compares two runs of the same floor: how far the host',
    'drifted between the two adapters’ turns. PostgreSQL’s CPU share and the notes are in the rows below.',
    '',
    ...perAdapterLines(rows, info),
    '',
    '## Scenarios (every row, in the order run)',
    '',
    ...tableLines(rows),
    '',
    'errors = non-2xx answers (for 3a/3b: answers other than 404/401) + socket errors and timeouts;',
    'for 5a/5b: events whose delivery never arrived. Peak RSS is sampled every 100 ms during the row.',
    'CPU ms/req: CPU time (user + system, all threads) during the row divided by its requests — for',
    'the process measured (the service; the raw floor in row 6) and for all PostgreSQL processes; 5a per',
    'delivery, 5b per event (its staging and its delivery), 10b-10e per staging (per MiB in their',
    'notes). Steal: the share of the host’s CPU time the hypervisor gave elsewhere during the row.',
    'Both figures drift with the host between runs, as requests/s do; the split shows where a',
    'request’s time goes. Group 10 stages at a few connections (bench/README.md), not at the 32 of',
    'the other rows; its notes compare the other tenant’s read p99 during each row with 10a’s.',
    '',
    ...(info.soak
      ? [
          '## Soak (9c, issue 23)',
          '',
          ...soakLines(info),
          '',
          'Row counts sampled every 5 s (shown every 30 s) on the soak’s own database; "tokens issued"',
          'and "stagings" are what the load had created by then (a token row each; an event, a',
          'delivery and an attempt each). See bench/README.md for what "bounded" means.',
          '',
        ]
      : []),
    '## Targets (issue 8 on Express; Fastify against the raw floor; issue 3 on both; issue 23)',
    '',
    ...targetLines(targets),
    '',
  ];
  // a partial run writes under bench/.tmp, which a fresh clone does not have
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, md.join('\n'));
}
