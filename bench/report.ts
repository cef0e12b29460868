import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import type { CpuCost } from './cpu-meter.js';
import { CONNECTIONS } from './harness.js';

import {
  HTTP_ADAPTERS,
  type HttpAdapterName,
} from '../src/common/http/platform/http-platform.js';

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
  note: string;
}

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
  check(
    e,
    '5',
    'event → first attempt p99 ≤ 250 ms (5b)',
    row('5b')?.p99,
    (v) => v <= 250,
    ms,
  );
  check(e, 'all', 'service RSS ≤ 300 MB', peakRss(rows, info, e), (v) => v <= 300, (v) => {
    return `${v.toFixed(0)} MB`;
  });
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

function tableLines(rows: Row[]): string[] {
  const r6 = rows.find((r) => r.id === '6' && r.available);
  const lines = [
    '| # | scenario | req/s | p50 ms | p99 ms | errors | peak RSS MB | vs 6 | CPU ms/req: process | CPU ms/req: PostgreSQL | steal % | notes |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const ratio = r.id === '1' && r.rps && r6?.rps ? `${(r.rps / r6.rps).toFixed(2)} ×` : '';
    const cpu = `${fmt(r.cpu?.processMs, 2)} | ${fmt(r.cpu?.databaseMs, 2)} | ${fmt(r.cpu?.stealPct)}`;
    lines.push(
      r.available
        ? `| ${r.id} | ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.errors)} | ${fmt(r.rssMb)} | ${ratio} | ${cpu} | ${r.note} |`
        : `| ${r.id} | ${r.name} | – | – | – | – | – | | – | – | – | ${r.note} |`,
    );
  }
  return lines;
}

function targetLines(targets: Target[]): string[] {
  return [
    '| scenario | target | measured | status |',
    '|---|---|---|---|',
    ...targets.map((t) => `| ${t.scenario} | ${t.target} | ${t.measured} | **${t.status}** |`),
  ];
}

export function printTable(rows: Row[], targets: Target[], info: RunInfo): void {
  const out = [
    '',
    ...tableLines(rows),
    '',
    `start on a warm data directory: ${fmt(info.warmStartMs)} ms (cold: ${fmt(info.coldStartMs)} ms)`,
    '',
    ...targetLines(targets),
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

export async function writeResults(
  file: string,
  rows: Row[],
  targets: Target[],
  info: RunInfo,
): Promise<void> {
  const seedProblems = info.seed?.problems.length
    ? info.seed.problems.map((p) => `- seed problem: ${p}`)
    : [];
  const md = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (see bench/README.md). Numbers are from the run described here;',
    'the service, its PostgreSQL and the load generator share one machine.',
    '',
    `- Command: \`${command()}\``,
    `- Commit: ${revision()}`,
    `- Date: ${info.startedAt.toISOString()} → ${info.finishedAt?.toISOString() ?? '?'}`,
    `- Machine: ${machine()}`,
    `- Load average before the run (1/5/15 min): ${info.loadAvg.map((l) => l.toFixed(2)).join(' / ')}; after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
    `- Database: ${info.mode === 'embedded' ? 'embedded PostgreSQL in a fresh temporary DATA_DIR' : 'DATABASE_URL server, fresh database for the run'}`,
    `- Service settings: ${info.serviceSettings ?? 'defaults'}`,
    `- Service Node flags: ${info.nodeFlags ?? 'none'}`,
    `- Load: autocannon, ${CONNECTIONS} connections, ${info.durationSec} s per scenario, each after ${info.warmupSec} s of the same load unmeasured (JIT warm-up; the 3a/3b pair: one round of each)`,
    `- Seed: 1 enterprise tenant, 1 client with all scopes, ${info.seed?.projects ?? 0} projects, 1 document with ${info.seed?.versions ?? 0} versions`,
    ...seedProblems,
    `- Start on a warm data directory (spawn → /health/ready 200): **${fmt(info.warmStartMs)} ms** (cold first start: ${fmt(info.coldStartMs)} ms)`,
    `- Service peak RSS over the whole run (VmHWM): ${fmt(info.serviceHwmMb)} MB`,
    '',
    '## Scenarios',
    '',
    ...tableLines(rows),
    '',
    'errors = non-2xx answers (for 3a/3b: answers other than 404/401) + socket errors and timeouts;',
    'for 5a/5b: events whose delivery never arrived. Peak RSS is sampled every 100 ms during the row.',
    'CPU ms/req: CPU time (user + system, all threads) during the row divided by its requests — for',
    'the process measured (the service; the raw floor in row 6) and for all PostgreSQL processes; 5a per',
    'delivery, 5b per event (its staging and its delivery). Steal: the share of the host’s CPU time the',
    'hypervisor gave elsewhere during the row. Both figures drift with the host between runs, as',
    'requests/s do; the split shows where a request’s time goes.',
    '',
    '## Targets (issue 8, and issue 3 for the auth pair)',
    '',
    ...targetLines(targets),
    '',
  ];
  // a partial run writes under bench/.tmp, which a fresh clone does not have
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, md.join('\n'));
}
