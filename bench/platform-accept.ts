/**
 * `npm run bench` (after run.js), or alone: `node dist/bench/platform-accept.js`. The platform
 * API's review queue under load: `POST /platform/v1/revisions/{id}/accept` of staged candidates,
 * each on a document of its own, at CONNECTIONS (32) connections, on each adapter of
 * BENCH_ADAPTERS. Target: p99 ≤ 50 ms. `BENCH_ACCEPTS` (default 2000) accepts are measured after
 * `BENCH_ACCEPT_WARMUP` (default 200) unmeasured ones; every accept creates a version, supersedes
 * nothing (each document has one candidate) and writes its events and audit line, as in
 * production. `BENCH_ONLY` without `pa` skips it. Results: bench/README.md, "Platform accept".
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import {
  cli,
  CONNECTIONS,
  freePort,
  http,
  mapLimit,
  type ManagedProcess,
  ROOT,
  runJson,
  seedTenant,
  startProcess,
  contentOf,
  adminQuery,
  BENCH_ADAPTERS,
} from './harness.js';
import { databaseDelta } from './cpu-meter.js';
import { startScriptFlags } from './service-flags.js';

const ACCEPTS = Number(process.env.BENCH_ACCEPTS ?? 2000);
const WARMUP = Number(process.env.BENCH_ACCEPT_WARMUP ?? 200);
const TARGET_P99_MS = 50;
const ADAPTERS = BENCH_ADAPTERS;
const ONLY = process.env.BENCH_ONLY?.split(',').map((id) => id.trim());

const log = (line: string): void => {
  process.stdout.write(`[platform-accept] ${line}\n`);
};

interface Seeded {
  tenantId: number;
  projectId: number;
  token: string;
  platformKey: string;
}

/** The tenant, its token and the platform key, made as an operator makes them (the CLI). */
async function seed(env: Record<string, string>, svc: ManagedProcess): Promise<Seeded> {
  const t = await seedTenant(
    svc.baseUrl,
    env,
    { tenant: 'Review bench', client: 'stager' },
    'revisions:write',
  );
  const p = await cli<{ projectId: number }>(env, [
    'project',
    'create',
    '--tenant',
    String(t.tenantId),
    '--name',
    'Reviewed',
  ]);
  const key = await cli<{ key: string }>(env, [
    'platform-key',
    'create',
    '--name',
    'bench',
    '--scopes',
    'platform:reviews',
  ]);
  return {
    tenantId: t.tenantId,
    projectId: p.projectId,
    token: t.token,
    platformKey: key.key,
  };
}

/** `count` staged candidates, each on a new document of its own, staged through the API. */
async function candidates(
  env: Record<string, string>,
  svc: ManagedProcess,
  s: Seeded,
  count: number,
): Promise<number[]> {
  const { documentIds } = await runJson<{ documentIds: number[] }>(
    resolve(ROOT, 'dist/bench/seed-candidates.js'),
    [JSON.stringify({ tenantId: s.tenantId, projectId: s.projectId, documents: count })],
    env,
  );
  return mapLimit(documentIds, 16, async (documentId) => {
    const r = await http(
      svc.baseUrl,
      'POST',
      `/api/v1/documents/${documentId}/external-revisions`,
      {
        token: s.token,
        body: { content: contentOf(2) },
      },
    );
    if (r.status !== 201) throw new Error(`staging: ${r.status} ${JSON.stringify(r.body)}`);
    return (r.body as { revisionId: number }).revisionId;
  });
}

/** utime + stime (ticks of 10 ms) of one process; 0 once it has exited. */
function ticksOf(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * The PostgreSQL backends serving `database` (their process title names it), by pid: on a server
 * shared with other work, only this run's own backends are counted, not the server's background
 * processes (WAL writer, checkpointer) nor other databases' backends. Without a database name
 * (embedded server, its own), every `postgres` process.
 */
function backendTicks(database: string | undefined): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (database) {
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!title.includes(` ${database} `)) continue;
      }
      ticks.set(pid, ticksOf(pid));
    } catch {
      // exited between listing and reading
    }
  }
  return ticks;
}

interface AcceptRun {
  requestsPerSec: number;
  p50: number;
  p99: number;
  statuses: string;
  errors: number;
  /** CPU ms per accept of the service process and of the database's backends. */
  serviceCpuMs?: number;
  databaseCpuMs?: number;
}

/** Accepts every id once, at CONNECTIONS connections. */
async function acceptAll(
  platformUrl: string,
  key: string,
  ids: number[],
  meter?: { pid: number; database: string | undefined },
): Promise<AcceptRun> {
  let next = 0;
  const serviceBefore = meter ? ticksOf(String(meter.pid)) : 0;
  const databaseBefore = meter ? backendTicks(meter.database) : new Map<string, number>();
  const result = await autocannon({
    url: platformUrl,
    connections: CONNECTIONS,
    amount: ids.length,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'x-acting-user': 'bench reviewer',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ note: 'accepted under load' }),
        setupRequest: (req) => ({
          ...req,
          path: `/platform/v1/revisions/${ids[next++ % ids.length]}/accept`,
        }),
      },
    ],
  });
  const ok = result.statusCodeStats?.['200']?.count ?? 0;
  const perAccept = (ticks: number): number => (ticks * 10) / Math.max(result.requests.total, 1);
  const cpu = meter
    ? {
        serviceCpuMs: perAccept(ticksOf(String(meter.pid)) - serviceBefore),
        databaseCpuMs: perAccept(databaseDelta(databaseBefore, backendTicks(meter.database))),
      }
    : {};
  return {
    ...cpu,
    requestsPerSec: result.requests.total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: Object.entries(result.statusCodeStats ?? {})
      .map(([code, v]) => `${code}×${v.count ?? 0}`)
      .join(' '),
    errors: result.requests.total - ok + result.errors,
  };
}

async function main(): Promise<void> {
  if (ONLY && !ONLY.includes('pa')) return;
  const work = await mkdtemp(join(tmpdir(), 'grc-bench-accept-'));
  await chmod(work, 0o755);
  const server = process.env.DATABASE_URL;
  let env: Record<string, string>;
  let drop = async (): Promise<void> => undefined;
  let databaseName: string | undefined;
  if (server) {
    const name = `grc_bench_${randomBytes(5).toString('hex')}`;
    databaseName = name;
    await adminQuery(server, `CREATE DATABASE ${name}`);
    // e.g. `track_functions=all` (pg_stat_user_functions: the triggers' self time) or
    // `log_min_duration_statement=0` (every statement in the server's log)
    for (const setting of (process.env.BENCH_DB_SETTINGS ?? '').split(';').filter(Boolean)) {
      const [key, value] = setting.split('=');
      if (!/^[a-z_.]+$/.test(key ?? '') || !/^[\w.-]+$/.test(value ?? '')) {
        throw new Error(`BENCH_DB_SETTINGS: not name=value: ${setting}`);
      }
      await adminQuery(server, `ALTER DATABASE ${name} SET ${key} = '${value}'`);
    }
    const u = new URL(server);
    u.pathname = `/${name}`;
    env = { DATABASE_URL: u.toString(), WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };
    execFileSync(process.execPath, [resolve(ROOT, 'dist/src/migrate-cli.js')], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    drop = () => adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } else {
    const dataDir = join(work, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    env = { DATA_DIR: dataDir };
  }
  const profileDir = resolve(ROOT, 'bench/.tmp/profiles');
  if (process.env.BENCH_CPU_PROF) await mkdir(profileDir, { recursive: true });
  const nodeArgs = [
    ...startScriptFlags(ROOT),
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
  ];
  log(
    `${ACCEPTS} accepts (+${WARMUP} warm-up) at ${CONNECTIONS} connections; load ${loadavg()[0]!.toFixed(2)}`,
  );
  let seeded: Seeded | undefined;
  const rows: string[] = [];
  try {
    for (const adapter of ADAPTERS) {
      const platformPort = await freePort();
      const svc = await startProcess({
        script: 'dist/src/main.js',
        env: {
          ...env,
          SEED_DEMO: 'false',
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
          HTTP_ADAPTER: adapter,
          PLATFORM_API_PORT: String(platformPort),
          MAX_CONNECTIONS_PER_ADDRESS: '4096',
          RATE_LIMIT_API_PER_MINUTE: '1000000000',
        },
        port: await freePort(),
        logFile: join(work, `service-${adapter}.log`),
        readyPath: '/health/ready',
        nodeArgs,
      });
      try {
        seeded ??= await seed(env, svc);
        const ids = await candidates(env, svc, seeded, WARMUP + ACCEPTS);
        const platformUrl = `http://127.0.0.1:${platformPort}`;
        if (WARMUP > 0) await acceptAll(platformUrl, seeded.platformKey, ids.slice(0, WARMUP));
        log(
          `${adapter}: measured accepts start (service pid ${svc.pid}, database ${databaseName ?? 'embedded'})`,
        );
        const run = await acceptAll(platformUrl, seeded.platformKey, ids.slice(WARMUP), {
          pid: svc.pid,
          database: databaseName,
        });
        const ok = run.p99 <= TARGET_P99_MS && run.errors === 0;
        const cpu = (ms: number | undefined): string => (ms === undefined ? '–' : ms.toFixed(2));
        rows.push(
          `| ${adapter} | ${run.requestsPerSec.toFixed(0)} | ${run.p50} | ${run.p99} | ${cpu(run.serviceCpuMs)} | ${cpu(run.databaseCpuMs)} | ${run.statuses} | ${ok ? 'met' : 'NOT met'} |`,
        );
      } finally {
        await svc.stop();
      }
    }
  } finally {
    if (!process.env.BENCH_KEEP) {
      await drop().catch(() => undefined);
      await rm(work, { recursive: true, force: true });
    } else log(`kept ${work}${databaseName ? ` and database ${databaseName}` : ''}`);
  }
  log(
    `accept of a staged candidate, target p99 ≤ ${TARGET_P99_MS} ms at ${CONNECTIONS} connections`,
  );
  process.stdout.write(
    [
      '| adapter | req/s | p50 ms | p99 ms | service CPU ms/accept | database CPU ms/accept | statuses | target |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    ]
      .map((l) => `${l}\n`)
      .join(''),
  );
}

await main();
