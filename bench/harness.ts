import autocannon from 'autocannon';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../src/common/net/free-port.js';

export { freePort };

/** The adapters `BENCH_ADAPTERS` names (default both), for the standalone platform benches. */
export const BENCH_ADAPTERS = (process.env.BENCH_ADAPTERS ?? 'express,fastify')
  .split(',')
  .map((a) => a.trim())
  .filter(Boolean);

/** Runs one statement on its own connection (CREATE/DROP DATABASE and the like). */
export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Repository root (this file runs from dist/bench/). */
export const ROOT = resolve(import.meta.dirname, '..', '..');
/**
 * Connections of every load run: 32, the figure the targets are stated at. `BENCH_CONNECTIONS`
 * changes it for a diagnostic run (latency at a lower concurrency); RESULTS states the figure used.
 */
export const CONNECTIONS = benchConnections(process.env.BENCH_CONNECTIONS);

function benchConnections(value: string | undefined): number {
  if (value === undefined || value === '') return 32;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) {
    throw new Error(`BENCH_CONNECTIONS must be an integer from 1 to 1024, not ${value}`);
  }
  return n;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resident set size of a process in MiB (`VmRSS`, or `VmHWM` for the high-water mark). */
export function readRssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every 100 ms; `stop()` returns the peak seen since `start()`. */
export class RssSampler {
  private peak = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pid: number) {}

  start(): this {
    this.peak = readRssMb(this.pid) ?? 0;
    this.timer = setInterval(() => {
      this.peak = Math.max(this.peak, readRssMb(this.pid) ?? 0);
    }, 100);
    return this;
  }

  stop(): number {
    clearInterval(this.timer);
    this.peak = Math.max(this.peak, readRssMb(this.pid) ?? 0);
    return this.peak;
  }
}

export interface ManagedProcess {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** Milliseconds from spawn to the readiness probe answering 200. */
  readyMs: number;
  logFile: string;
  stop(): Promise<void>;
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Spawns `node <script>` with its output in `logFile`, and waits until `readyPath` answers 200.
 * The process's log is kept, not discarded, so that logging costs what it costs in production.
 */
export async function startProcess(opts: {
  script: string;
  env: Record<string, string>;
  port: number;
  logFile: string;
  readyPath: string;
  timeoutMs?: number;
  nodeArgs?: string[];
  /** Working directory `script` is resolved from; the repository root unless given. */
  cwd?: string;
}): Promise<ManagedProcess> {
  const fd = openSync(opts.logFile, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script], {
    cwd: opts.cwd ?? ROOT,
    // no platform listener: replicas started side by side would share its default port (3001)
    env: { ...process.env, PLATFORM_API_PORT: 'off', ...opts.env, PORT: String(opts.port) },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  let exited: number | null | undefined;
  const exit = new Promise<void>((ok) =>
    child.once('exit', (code) => {
      exited = code;
      ok();
    }),
  );
  const baseUrl = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    if (exited !== undefined) {
      throw new Error(`${opts.script} exited (${exited}) before ready:\n${tail(opts.logFile)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${opts.script} not ready in time:\n${tail(opts.logFile)}`);
    }
    try {
      const res = await fetch(`${baseUrl}${opts.readyPath}`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(25);
  }
  const readyMs = performance.now() - started;
  return {
    child,
    pid: child.pid!,
    baseUrl,
    readyMs,
    logFile: opts.logFile,
    stop: async () => {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** Content of version `n` of the benchmark document. */
export const contentOf = (n: number): Record<string, unknown> => ({
  title: 'Access control policy',
  revision: n,
  sections: [{ heading: 'Scope', body: `Applies to all systems (revision ${n}).` }],
});

/** Runs the administration CLI (`node dist/src/cli.js … --json`) and returns its JSON object. */
export function cli<T = Record<string, unknown>>(
  env: Record<string, string>,
  args: string[],
): Promise<T> {
  return runJson<T>(resolve(ROOT, 'dist/src/cli.js'), [...args, '--json'], env);
}

/** Runs `node script …args` and parses the one JSON object it prints; fails on exit ≠ 0. */
export function runJson<T>(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<T> {
  return new Promise((ok, fail) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(stdout);
        } catch {
          parsed = undefined;
        }
        if (err || !parsed || typeof parsed !== 'object' || 'error' in parsed) {
          fail(
            new Error(
              `${script.replace(`${ROOT}/`, '')} ${args.slice(0, 2).join(' ')} failed: ${stdout.trim() || err?.message} ${stderr.trim()}`,
            ),
          );
          return;
        }
        ok(parsed as T);
      },
    );
  });
}

/** Runs `fn` over `items` with at most `limit` at a time, results in input order. */
export async function mapLimit<I, O>(
  items: readonly I[],
  limit: number,
  fn: (item: I, index: number) => Promise<O>,
): Promise<O[]> {
  const out: O[] = new Array<O>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export interface HttpResult {
  status: number;
  body: any;
  headers: Headers;
}

export async function http(
  baseUrl: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers };
}

/** A tenant as `seedTenant` makes it: its id, and a token of its client for the API. */
export interface SeededTenant {
  tenantId: number;
  token: string;
}

/**
 * A tenant on the enterprise plan and a client of it (`client`, with `scopes`), made by the CLI as
 * an operator makes them, and a 24 h token of that client from POST /oauth/token.
 */
export async function seedTenant(
  baseUrl: string,
  env: Record<string, string>,
  names: { tenant: string; client: string },
  scopes: string,
): Promise<SeededTenant> {
  const t = await cli<{ tenant_id: number }>(env, [
    'tenant',
    'create',
    '--name',
    names.tenant,
    '--plan',
    'enterprise',
  ]);
  const c = await cli<{ client_id: string; client_secret: string }>(env, [
    'client',
    'create',
    '--tenant',
    String(t.tenant_id),
    '--name',
    names.client,
    '--scopes',
    scopes,
  ]);
  const r = await http(baseUrl, 'POST', '/api/v1/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: c.client_id,
      client_secret: c.client_secret,
      ttl: 86400,
    },
  });
  if (r.status !== 200) throw new Error(`token: status ${r.status}`);
  return { tenantId: t.tenant_id, token: (r.body as { access_token: string }).access_token };
}

export interface LoadResult {
  requestsPerSec: number;
  /** Seconds the run lasted. */
  elapsedSec?: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
  non2xx: number;
  /** Status counts, e.g. `200×5120 429×3`. */
  statuses: string;
}

/**
 * One autocannon run at CONNECTIONS connections (or `connections`). Errors = answers other than the expected ones (non-2xx
 * unless `expectStatus`) + socket errors (timeouts included).
 */
export async function load(opts: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  durationSec?: number;
  amount?: number;
  overallRate?: number;
  /** For routes whose expected answer is not a 2xx (the auth pair): any other status is an error. */
  expectStatus?: number;
  /** Connections of this run, instead of CONNECTIONS (the heavy-content rows use a few). */
  connections?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? CONNECTIONS,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.durationSec ?? 10 }),
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    timeout: 10,
  });
  const elapsedSec = Math.max(result.duration, 0.001);
  const expected = opts.expectStatus
    ? (result.statusCodeStats?.[`${opts.expectStatus}`]?.count ?? 0)
    : result.requests.total - result.non2xx;
  return {
    requestsPerSec: result.requests.total / elapsedSec,
    elapsedSec,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.requests.total - expected + result.errors,
    non2xx: result.non2xx,
    total: result.requests.total,
    statuses: Object.entries(result.statusCodeStats ?? {})
      .map(([code, v]) => `${code}×${v.count ?? 0}`)
      .join(' '),
  };
}

/**
 * Several load runs as one: requests per second over their whole time, the median p50, the worst
 * p99, errors summed.
 */
export function combineLoads(
  runs: readonly LoadResult[],
  durations: readonly number[],
): LoadResult {
  const total = runs.reduce((n, r) => n + r.total, 0);
  const seconds = durations.reduce((n, d) => n + d, 0);
  const p50s = runs.map((r) => r.p50).sort((x, y) => x - y);
  return {
    requestsPerSec: total / Math.max(seconds, 0.001),
    p50: p50s[Math.floor(p50s.length / 2)] ?? 0,
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    total,
    statuses: runs.map((r) => r.statuses).join(' | '),
  };
}
