import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  embeddedDatabaseDir,
  runningPostmaster,
} from '../src/common/database/embedded-database.js';
import { runningEmbeddedUrls } from '../src/common/database/embedded-access.js';
import {
  combineLoads,
  cli,
  contentOf,
  freePort,
  http,
  load,
  type LoadResult,
  type ManagedProcess,
  mapLimit,
  readRssMb,
  ROOT,
  runJson,
  RssSampler,
  seedTenant,
  type SeededTenant,
  sleep,
  startProcess,
  adminQuery,
} from './harness.js';
import { BIG, type BigTenant, seedBigTenant } from './big-tenant.js';
import { CpuMeter } from './cpu-meter.js';
import { LoopDelayWindow } from './event-loop.js';
import {
  heavyContentGroup,
  type HeavySetup,
  heavySetup,
  IDS_10,
  NAMES_10,
} from './heavy-content.js';
import { startScriptEnv, startScriptFlags } from './service-flags.js';
import {
  type Adapter,
  ADAPTER_ORDER,
  evaluateTargets,
  type Measured,
  printTable,
  type Row,
  type RunInfo,
  unavailable,
  writeResults,
} from './report.js';
import { IDS_9, NAMES_9, pooledGroup } from './pooled.js';
import { WebhookReceiver } from './webhook-receiver.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);
/** 5b's staging rate (events/s to its one webhook), and how long its receiver takes to answer. */
const WEBHOOK_LIVE_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const WEBHOOK_ANSWER_MS = 2;
/** Issue 19's noisy neighbour (5c, 5d): tenant A's webhooks, all on a receiver that never answers. */
const NEIGHBOUR_WEBHOOKS = 50;
/** Tenant A's backlog, queued by SQL: NEIGHBOUR_DELIVERIES / NEIGHBOUR_WEBHOOKS events × its webhooks. */
const NEIGHBOUR_DELIVERIES = 5000;
/** The benchmark tenant's events in 5c, one staging every NEIGHBOUR_SPACING_MS. */
const NEIGHBOUR_EVENTS = Number(process.env.BENCH_NEIGHBOUR_EVENTS ?? 200);
const NEIGHBOUR_SPACING_MS = Number(process.env.BENCH_NEIGHBOUR_SPACING_MS ?? 50);
/** A's attempts hanging before 5c starts: the delivery worker's share of one tenant (32 of 64). */
const MIN_A_IN_FLIGHT = 32;
/** Seconds of unmeasured load at the same concurrency before each measured row. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
/**
 * `BENCH_ONLY=1,6,3a` runs those scenarios only (ids as in the table; `3` is 3, 3a and 3b, `5` is
 * 5a-5d, `7` is 7a-7h, `8` is 8a, 8b and 8c, `9` is 9a, 9b and 9c, `10` is 10a-10e), for iterating on one path. Such a partial run writes bench/.tmp/RESULTS-partial.md,
 * never RESULTS.md.
 */
const ONLY = process.env.BENCH_ONLY
  ? new Set(process.env.BENCH_ONLY.split(',').map((id) => id.trim()))
  : null;
const wanted = (id: string): boolean => !ONLY || ONLY.has(id) || ONLY.has(id.replace(/[a-z]$/, ''));
/**
 * `BENCH_ADAPTERS=express,fastify` (the default): the HTTP adapters every scenario runs on, the
 * first one also cold-starting and seeding. One adapter only is a partial run (RESULTS-partial.md).
 */
const ADAPTER_NAMES = (process.env.BENCH_ADAPTERS ?? ADAPTER_ORDER.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const ADAPTERS = [...new Set(ADAPTER_NAMES)].filter((name): name is Adapter =>
  (ADAPTER_ORDER as readonly string[]).includes(name),
);
/**
 * `BENCH_SERVICE_ROOT=/path/to/checkout`: run the service (`dist/src/main.js`) built in another
 * checkout of the same schema, for A/B runs of two versions alternating on one machine (see
 * bench/ab-webhooks.sh); the runner, seeding and migrations stay this checkout's.
 */
const SERVICE_ROOT = process.env.BENCH_SERVICE_ROOT ?? ROOT;
/** Alternations of the issue-3 pair (3a, 3b), each DURATION / PAIR_ROUNDS seconds long. */
const PAIR_ROUNDS = 5;
/** Token requests per case in the timing rows 8a-8c (issue 18 measured 2,000). */
const TIMING_SAMPLES = Number(process.env.BENCH_TIMING_SAMPLES ?? 2000);
const PROJECTS = 50;
/**
 * The service's METRICS_TOKEN: `/metrics` on the API port, scraped around each row's measured
 * window for its event-loop delay (issue 39 item 5, bench/event-loop.ts). Random per run.
 */
const METRICS_TOKEN = randomBytes(24).toString('hex');
/** Every window made, for the scrapes' own cost at the end of the run. */
const loopWindows: LoopDelayWindow[] = [];
const loopOf = (svc: ManagedProcess): LoopDelayWindow => {
  const w = new LoopDelayWindow(svc.baseUrl, METRICS_TOKEN);
  loopWindows.push(w);
  return w;
};
const VERSIONS = 20;
const ALL_SCOPES =
  'projects:read documents:read revisions:write locks:write webhooks:read webhooks:write';

const log = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`);
};

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A service that crashed leaves its embedded PostgreSQL running: stop it before removing its files. */
async function stopOrphanedPostmaster(dataDir: string): Promise<void> {
  const pm = runningPostmaster(embeddedDatabaseDir(dataDir));
  if (!pm) return;
  log(`stopping the embedded PostgreSQL left running (pid ${pm.pid})`);
  const alive = (): boolean => {
    try {
      process.kill(pm.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(pm.pid, 'SIGINT');
  for (let i = 0; i < 100 && alive(); i++) await sleep(100);
  if (alive()) process.kill(pm.pid, 'SIGQUIT');
}

interface Database {
  /** Environment the service and the CLI get. */
  env: Record<string, string>;
  /** URL of the benchmark database, known once the service has started (embedded mode). */
  url(): string;
  /** The service's WEBHOOK_SECRET_KEY (embedded mode: its DATA_DIR's, made at the first start). */
  secretKey(): string;
  mode: 'embedded' | 'external';
  drop(): Promise<void>;
}

async function prepareDatabase(work: string): Promise<Database> {
  const server = process.env.DATABASE_URL;
  if (!server) {
    const dataDir = join(work, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    return {
      mode: 'embedded',
      env: { DATA_DIR: dataDir },
      url: () => {
        const pm = runningPostmaster(embeddedDatabaseDir(dataDir));
        if (!pm) throw new Error('the embedded PostgreSQL is not running');
        return runningEmbeddedUrls(dataDir, pm.port).adminUrl;
      },
      secretKey: () => readFileSync(join(dataDir, 'webhook-secret.key'), 'utf8').trim(),
      drop: () => stopOrphanedPostmaster(dataDir),
    };
  }
  const name = `grc_bench_${randomBytes(5).toString('hex')}`;
  await adminQuery(server, `CREATE DATABASE ${name}`);
  const url = withDatabase(server, name);
  const env = { DATABASE_URL: url, WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };
  execFileSync(process.execPath, [resolve(ROOT, 'dist/src/migrate-cli.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    mode: 'external',
    env,
    url: () => url,
    secretKey: () => env.WEBHOOK_SECRET_KEY,
    drop: () =>
      process.env.BENCH_KEEP
        ? Promise.resolve()
        : adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

interface Seed {
  tenantId?: number;
  clientId?: string;
  clientSecret?: string;
  token?: string;
  projects: number;
  projectId?: number;
  documentId?: number;
  versions: number;
  problems: string[];
}

async function stage(
  baseUrl: string,
  token: string,
  documentId: number,
  content: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  return http(baseUrl, 'POST', `/api/v1/documents/${documentId}/external-revisions`, {
    token,
    body: { content },
  });
}

/** The benchmark tenant, through the administration CLI and the API, as an integrator would. */
async function seed(svc: ManagedProcess, env: Record<string, string>, work: string): Promise<Seed> {
  const s: Seed = { projects: 0, versions: 0, problems: [] };
  const step = async (what: string, fn: () => Promise<void>): Promise<boolean> => {
    const t = Date.now();
    try {
      await fn();
      log(`seed: ${what} (${Date.now() - t} ms)`);
      return true;
    } catch (err) {
      s.problems.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      log(`seed: ${what} FAILED: ${String(err)}`);
      return false;
    }
  };
  const ok =
    (await step('tenant create', async () => {
      const t = await cli<{ tenant_id: number }>(env, [
        'tenant',
        'create',
        '--name',
        'Benchmark',
        '--plan',
        'enterprise',
      ]);
      s.tenantId = t.tenant_id;
    })) &&
    (await step('client create', async () => {
      const c = await cli<{ client_id: string; client_secret: string }>(env, [
        'client',
        'create',
        '--tenant',
        String(s.tenantId),
        '--name',
        'benchmark',
        '--scopes',
        ALL_SCOPES,
      ]);
      s.clientId = c.client_id;
      s.clientSecret = c.client_secret;
    })) &&
    (await step('POST /oauth/token', async () => {
      const r = await http(svc.baseUrl, 'POST', '/api/v1/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: s.clientId,
          client_secret: s.clientSecret,
          ttl: 86400,
        },
      });
      if (r.status !== 200) throw new Error(`status ${r.status}: ${JSON.stringify(r.body)}`);
      s.token = (r.body as { access_token: string }).access_token;
    }));
  if (!ok) return s;

  const createProject = async (n: number): Promise<number> =>
    (
      await cli<{ projectId: number }>(env, [
        'project',
        'create',
        '--tenant',
        String(s.tenantId),
        '--name',
        `Benchmark project ${n}`,
      ])
    ).projectId;
  await step('project create', async () => {
    s.projectId = await createProject(1);
    s.projects = 1;
  });
  if (!s.projectId) return s;

  const contentFile = join(work, 'content-1.json');
  await writeFile(contentFile, JSON.stringify(contentOf(1)));
  const created = await step('document create', async () => {
    const d = await cli<{ documentId: number }>(env, [
      'document',
      'create',
      '--project',
      String(s.projectId),
      '--title',
      'Access control policy',
      '--content-file',
      contentFile,
    ]);
    s.documentId = d.documentId;
    s.versions = 1;
  });

  const acceptNext = async (): Promise<void> => {
    const n = s.versions + 1;
    const r = await stage(svc.baseUrl, s.token!, s.documentId!, contentOf(n));
    if (r.status !== 201) throw new Error(`staging: status ${r.status}: ${JSON.stringify(r.body)}`);
    const revisionId = (r.body as { revisionId: number }).revisionId;
    await cli(env, ['revision', 'accept', '--revision', String(revisionId), '--by', 'bench']);
    s.versions = n;
  };
  if (created) await step('staging + revision accept', acceptNext);

  // the rest in one process (seed-bulk.ts), unless BENCH_SEED=cli or that fails
  const bulk =
    process.env.BENCH_SEED !== 'cli' &&
    (await step(
      `${PROJECTS - 1} projects + ${VERSIONS - s.versions} versions (seed-bulk)`,
      async () => {
        const out = await runJson<{ projectIds: number[]; versionIds: number[] }>(
          resolve(ROOT, 'dist/bench/seed-bulk.js'),
          [
            JSON.stringify({
              tenantId: s.tenantId,
              projects: PROJECTS - 1,
              documentId: s.documentId ?? 0,
              versions: s.documentId ? VERSIONS - s.versions : 0,
              firstNumber: s.versions + 1,
            }),
          ],
          env,
        );
        s.projects += out.projectIds.length;
        s.versions += out.versionIds.length;
      },
    ));
  if (!bulk) {
    await step(`${PROJECTS - s.projects} × project create`, async () => {
      const ids = await mapLimit(
        Array.from({ length: PROJECTS - s.projects }, (_, i) => i + 2),
        2,
        createProject,
      );
      s.projects += ids.length;
    });
    if (created) {
      await step(`${VERSIONS - s.versions} × (staging + revision accept)`, async () => {
        while (s.versions < VERSIONS) await acceptNext();
      });
    }
  }
  const doc = await http(svc.baseUrl, 'GET', `/api/v1/documents/${s.documentId}`, {
    token: s.token,
  });
  if (doc.status === 200) s.versions = (doc.body as { versions: unknown[] }).versions.length;
  return s;
}

/**
 * Scenario row from one load run, with the service's peak RSS during it and, given its `loop`
 * window, its event-loop delay p99 (scraped right before and right after the measured run).
 */
async function measure(
  id: string,
  name: string,
  pid: number,
  run: (seconds: number) => Promise<LoadResult>,
  note = '',
  loop?: LoopDelayWindow,
): Promise<Measured> {
  if (!wanted(id)) return unavailable(id, name, 'not run (BENCH_ONLY)');
  log(`scenario ${id}: ${name}`);
  // unmeasured: otherwise the row's first seconds also measure the JIT compiling the path
  if (WARMUP > 0) await run(WARMUP);
  await loop?.begin();
  const rss = new RssSampler(pid).start();
  const cpu = new CpuMeter(pid).begin();
  const r = await run(DURATION);
  cpu.end();
  const rssMb = rss.stop();
  const loopP99Ms = await loop?.end();
  const loopNote = loop?.problem ? `event-loop p99 n/a: ${loop.problem}` : '';
  const notes = [note, loopNote].filter(Boolean).join('; ');
  return { ...rowOf(id, name, r, rssMb, notes, cpu), loopP99Ms };
}

/** One side of an interleaved pair; `pid`: its own process (9a/9b), else the pair's. */
interface InterleavedSide {
  id: string;
  name: string;
  note: string;
  pid?: number;
  run: (seconds: number) => Promise<LoadResult>;
}

/**
 * Two scenarios measured in alternation, `rounds` times each (the issue-3 pair): on a shared
 * machine whose speed drifts from one ten-second window to the next, a ratio of two runs taken one
 * after the other measures the drift as much as the difference. Each row sums its rounds.
 */
async function measureInterleaved(
  a: InterleavedSide,
  b: InterleavedSide,
  pid: number,
  rounds: number,
): Promise<[Measured, Measured]> {
  if (!wanted(a.id) && !wanted(b.id)) {
    return [
      unavailable(a.id, a.name, 'not run (BENCH_ONLY)'),
      unavailable(b.id, b.name, 'not run (BENCH_ONLY)'),
    ];
  }
  const seconds = Math.max(2, Math.round(DURATION / rounds));
  log(`scenarios ${a.id}/${b.id}: a warm-up, then ${rounds} alternating rounds of ${seconds} s`);
  // unmeasured: the first round would otherwise also measure the JIT compiling each path
  await a.run(seconds);
  await b.run(seconds);
  const rssA = new RssSampler(a.pid ?? pid).start();
  const rssB = new RssSampler(b.pid ?? pid).start();
  const runsA: LoadResult[] = [];
  const runsB: LoadResult[] = [];
  const cpuA = new CpuMeter(a.pid ?? pid);
  const cpuB = new CpuMeter(b.pid ?? pid);
  for (let i = 0; i < rounds; i++) {
    cpuA.begin();
    runsA.push(await a.run(seconds));
    cpuA.end();
    cpuB.begin();
    runsB.push(await b.run(seconds));
    cpuB.end();
  }
  const rssMbA = rssA.stop();
  const rssMbB = rssB.stop();
  const ratios = runsA
    .map((r, i) => (r.requestsPerSec / (runsB[i]?.requestsPerSec ?? Infinity)).toFixed(2))
    .join(', ');
  const combined = (runs: LoadResult[]) =>
    combineLoads(
      runs,
      runs.map((r) => r.elapsedSec ?? seconds),
    );
  return [
    rowOf(a.id, a.name, combined(runsA), rssMbA, `${a.note}; ratio per round ${ratios}`, cpuA),
    rowOf(b.id, b.name, combined(runsB), rssMbB, b.note, cpuB),
  ];
}

/** A measured row; its CPU figures are the meter's spans divided over the row's requests. */
function rowOf(
  id: string,
  name: string,
  r: LoadResult,
  rssMb: number,
  note: string,
  cpu: CpuMeter,
): Measured {
  return {
    id,
    name,
    available: true,
    rps: r.requestsPerSec,
    p50: r.p50,
    p99: r.p99,
    errors: r.errors,
    rssMb,
    cpu: cpu.cost(r.total),
    note: [note, `${r.total} requests`, r.errors ? `statuses ${r.statuses}` : '']
      .filter(Boolean)
      .join('; '),
  };
}

/** One request before the load, so a missing endpoint is a clear row, not a page of errors. */
async function probe(
  baseUrl: string,
  method: string,
  path: string,
  expect: number,
  opts: { token?: string; body?: unknown } = {},
): Promise<string | null> {
  try {
    const r = await http(baseUrl, method, path, opts);
    if (r.status === expect) return null;
    const code = (r.body as { code?: string; error?: string } | undefined)?.code ?? '';
    return `probe ${method} ${path} answered ${r.status} ${code}`.trim();
  } catch (err) {
    return `probe ${method} ${path} failed: ${String(err)}`;
  }
}

/** Deliveries of one webhook by status, read from the database (the source of truth). */
async function deliveryCounts(dbUrl: string, webhookId: number): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status',
      [webhookId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await client.end();
  }
}

/**
 * 5b's split of event → arrival: p50/p99 of payload timestamp → first attempt's start (the wait
 * for commit, wake-up, claim or chain, all before the send), from the attempts the worker wrote.
 */
async function firstAttemptWait(dbUrl: string, webhookId: number, since: Date): Promise<string> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ p50: number | null; p99: number | null }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
         FROM (SELECT extract(epoch FROM min(a.attempted_at)
                        - (e.payload->>'timestamp')::timestamptz) * 1000 AS ms
                 FROM webhook_deliveries d
                 JOIN events e ON e.id = d.event_id
                 JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
                WHERE d.webhook_id = $1 AND a.attempted_at >= $2
                GROUP BY d.id, e.payload) w`,
      [webhookId, since],
    );
    const [r] = rows;
    return `payload timestamp → first attempt's start p50 ${Math.round(r?.p50 ?? NaN)} ms, p99 ${Math.round(r?.p99 ?? NaN)} ms`;
  } finally {
    await client.end();
  }
}

const total = (counts: Record<string, number>): number =>
  Object.values(counts).reduce((a, b) => a + b, 0);

const describeCounts = (before: Record<string, number>, after: Record<string, number>): string =>
  Object.keys(after)
    .map((k) => `${k} ${after[k]! - (before[k] ?? 0)}`)
    .join(', ');

/** Scenario names of group 5 (the noisy neighbour's after A's backlog size is known). */
const NAMES_5: Record<string, string> = {
  '5a': `webhook deliveries/s, backlog of ${WEBHOOK_EVENTS} drained`,
  '5b': `webhook live: stagings at ≤ ${WEBHOOK_LIVE_RATE}/s (32 conns), receiver answering in ${WEBHOOK_ANSWER_MS} ms, event → first attempt`,
  '5c': `noisy neighbour: B's event → first attempt, A's ${NEIGHBOUR_DELIVERIES.toLocaleString('en')} deliveries on a hanging receiver`,
  '5d': `noisy neighbour: backlog of ${WEBHOOK_EVENTS} drained beside A's hanging backlog`,
};
const IDS_5 = ['5a', '5b', '5c', '5d'];

/**
 * Group 5: 5a/5b (the benchmark tenant's webhook on its own), then 5c/5d (the same tenant beside
 * tenant A, whose backlog waits on a receiver that never answers). `neighbour` makes or returns
 * tenant A.
 */
async function webhookScenario(
  svc: ManagedProcess,
  dbUrl: string,
  s: Seed,
  stagingBody: string,
  neighbour: () => Promise<SeededTenant>,
  loop: LoopDelayWindow,
): Promise<Measured[]> {
  const rows: Measured[] = [];
  const none = (ids: string[], why: string): Measured[] =>
    ids.map((id) => unavailable(id, NAMES_5[id]!, why));
  if (!s.token || !s.documentId) return none(IDS_5, 'seed incomplete');
  const token = s.token;
  const createHook = async (owner: string, url: string, name: string): Promise<number | string> => {
    const created = await http(svc.baseUrl, 'POST', '/api/v1/webhooks', {
      token: owner,
      body: { name, endpoint_url: url, events: ['*'] },
    });
    return created.status === 201
      ? (created.body as { webhookId: number }).webhookId
      : `POST /webhooks answered ${created.status}`;
  };
  const setStatus = (owner: string, webhookId: number, status: string) =>
    http(svc.baseUrl, 'POST', `/api/v1/webhooks/${webhookId}/status`, {
      token: owner,
      body: { status },
    });
  const stagingUrl = `${svc.baseUrl}/api/v1/documents/${s.documentId}/external-revisions`;
  const stagingHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  /** A row's event-loop p99 and, when the scrape failed, why (for its note). */
  const loopEnd = async (): Promise<{ loopP99Ms?: number; loopNote: string }> => {
    const loopP99Ms = await loop.end();
    return { loopP99Ms, loopNote: loop.problem ? `; event-loop p99 n/a: ${loop.problem}` : '' };
  };
  const waitFor = async (
    receiver: WebhookReceiver,
    expected: number,
    stallMs: number,
  ): Promise<void> => {
    let last = -1;
    let lastChange = Date.now();
    while (receiver.received < expected && Date.now() - lastChange < stallMs) {
      await sleep(100);
      if (receiver.received !== last) {
        last = receiver.received;
        lastChange = Date.now();
      }
    }
  };

  /**
   * Pure delivery throughput (5a, 5d): the webhook paused, WEBHOOK_EVENTS stagings queue one
   * delivery each, then it is re-activated and drained; rate = first to last arrival.
   */
  const drain = async (
    id: string,
    webhookId: number,
    receiver: WebhookReceiver,
  ): Promise<Measured> => {
    const name = NAMES_5[id]!;
    log(`scenario ${id}: ${name}`);
    const paused = await setStatus(token, webhookId, 'paused');
    if (paused.status !== 200) return unavailable(id, name, `pausing answered ${paused.status}`);
    // 5d's webhook already carries 5c's deliveries: count only what this row queues
    const before = await deliveryCounts(dbUrl, webhookId);
    receiver.reset();
    await load({
      url: stagingUrl,
      method: 'POST',
      headers: stagingHeaders,
      body: stagingBody,
      amount: WEBHOOK_EVENTS,
    });
    // autocannon may finish a few requests beyond `amount`: count what the service queued
    await sleep(1000);
    const queued = total(await deliveryCounts(dbUrl, webhookId)) - total(before);
    // a paused webhook must hold its deliveries: anything that arrived already is reported
    const whilePaused = receiver.received;
    receiver.reset();
    await loop.begin();
    const rss = new RssSampler(svc.pid).start();
    const cpu = new CpuMeter(svc.pid).begin();
    await setStatus(token, webhookId, 'active');
    await waitFor(receiver, queued, 15_000);
    cpu.end();
    const rssMb = rss.stop();
    const { loopP99Ms, loopNote } = await loopEnd();
    const after = await deliveryCounts(dbUrl, webhookId);
    return {
      id,
      name,
      available: true,
      rps: receiver.rate(),
      errors: Math.max(0, queued - whilePaused - receiver.received),
      rssMb,
      cpu: cpu.cost(receiver.received),
      loopP99Ms,
      note: `${receiver.received}/${queued} queued events arrived after re-activation, ${whilePaused} while paused, ${receiver.duplicates} duplicates (deliveries: ${describeCounts(before, after)}); rate = first to last arrival${loopNote}`,
    };
  };

  if (IDS_5.slice(0, 2).some(wanted)) {
    const receiver = new WebhookReceiver();
    await receiver.start();
    try {
      const webhookId = await createHook(
        token,
        `http://127.0.0.1:${receiver.port}/hook`,
        'benchmark receiver',
      );
      if (typeof webhookId === 'string') {
        rows.push(...none(['5a', '5b'], webhookId));
      } else {
        rows.push(await drain('5a', webhookId, receiver));

        // 5b: latency under load — the webhook active while stagings arrive at up to
        // WEBHOOK_LIVE_RATE/s, its receiver taking WEBHOOK_ANSWER_MS to answer
        const nameB = NAMES_5['5b']!;
        log(`scenario 5b: ${nameB}`);
        receiver.answerMs = WEBHOOK_ANSWER_MS;
        await setStatus(token, webhookId, 'active');
        await sleep(200);
        const before = await deliveryCounts(dbUrl, webhookId);
        receiver.reset();
        const liveSince = new Date();
        await loop.begin();
        const rss = new RssSampler(svc.pid).start();
        const cpu = new CpuMeter(svc.pid).begin();
        const gen = await load({
          url: stagingUrl,
          method: 'POST',
          headers: stagingHeaders,
          body: stagingBody,
          durationSec: DURATION,
          overallRate: WEBHOOK_LIVE_RATE,
        });
        await sleep(500);
        const produced = total(await deliveryCounts(dbUrl, webhookId)) - total(before);
        await waitFor(receiver, produced, 15_000);
        cpu.end();
        const rssMb = rss.stop();
        const { loopP99Ms, loopNote } = await loopEnd();
        const after = await deliveryCounts(dbUrl, webhookId);
        const split = await firstAttemptWait(dbUrl, webhookId, liveSince);
        rows.push({
          id: '5b',
          name: nameB,
          available: true,
          rps: receiver.rate(),
          p50: receiver.percentile(50),
          p99: receiver.percentile(99),
          errors: Math.max(0, produced - receiver.received) + gen.errors,
          rssMb,
          // per event: its staging and its delivery
          cpu: cpu.cost(produced),
          loopP99Ms,
          note: `${receiver.received}/${produced} events arrived (stagings ${gen.requestsPerSec.toFixed(0)}/s, their p99 ${gen.p99} ms, ${gen.errors} staging errors; ${split}), ${receiver.duplicates} duplicates (deliveries: ${describeCounts(before, after)}); p50/p99 = payload timestamp → arrival${loopNote}`,
        });
        await setStatus(token, webhookId, 'revoked');
      }
    } finally {
      await receiver.stop();
    }
  } else {
    rows.push(...none(['5a', '5b'], 'not run (BENCH_ONLY)'));
  }

  if (IDS_5.slice(2).some(wanted)) rows.push(...(await noisyNeighbour()));
  else rows.push(...none(['5c', '5d'], 'not run (BENCH_ONLY)'));
  return rows;

  /**
   * Issue 19: tenant A's NEIGHBOUR_WEBHOOKS webhooks on a receiver that never answers, with
   * NEIGHBOUR_DELIVERIES deliveries queued by SQL; beside it, the benchmark tenant ("B") sends
   * NEIGHBOUR_EVENTS events spaced NEIGHBOUR_SPACING_MS apart to a receiver that answers at once
   * (5c: payload timestamp → arrival), then drains a backlog as 5a does (5d).
   */
  async function noisyNeighbour(): Promise<Measured[]> {
    let a: SeededTenant;
    try {
      a = await neighbour();
    } catch (err) {
      return none(['5c', '5d'], `tenant A: ${err instanceof Error ? err.message : String(err)}`);
    }
    const hanging = new WebhookReceiver({ hang: true });
    const receiver = new WebhookReceiver();
    await hanging.start();
    await receiver.start();
    const hooksA: number[] = [];
    const out: Measured[] = [];
    try {
      for (let i = 0; i < NEIGHBOUR_WEBHOOKS; i++) {
        const id = await createHook(
          a.token,
          `http://127.0.0.1:${hanging.port}/a/${i}`,
          `neighbour hanging ${i}`,
        );
        if (typeof id === 'string') return none(['5c', '5d'], `tenant A's webhook ${i}: ${id}`);
        hooksA.push(id);
      }
      const backlog = await seedNeighbourBacklog(dbUrl, a.tenantId, hooksA);
      log(`noisy neighbour: tenant A ${hooksA.length} webhooks, ${backlog} deliveries queued`);
      // A's first attempts hang (the worker gives A at most its per-tenant share), then a second
      for (let i = 0; i < 100 && hanging.open < MIN_A_IN_FLIGHT; i++) await sleep(100);
      await sleep(1000);
      const aState = async (): Promise<string> => {
        const counts = await neighbourCounts(dbUrl, a.tenantId);
        return `A: ${hanging.requests} attempts reached its hanging receiver so far, ${hanging.open} open now; A's deliveries ${describeCounts({}, counts)}`;
      };
      const aBefore = await aState();

      const webhookId = await createHook(
        token,
        `http://127.0.0.1:${receiver.port}/hook`,
        'benchmark receiver beside a neighbour',
      );
      if (typeof webhookId === 'string') return none(['5c', '5d'], webhookId);

      if (wanted('5c')) {
        const name = NAMES_5['5c']!;
        log(`scenario 5c: ${name}`);
        receiver.reset();
        const before = await deliveryCounts(dbUrl, webhookId);
        await loop.begin();
        const rss = new RssSampler(svc.pid).start();
        const cpu = new CpuMeter(svc.pid).begin();
        const started = Date.now();
        let stagingErrors = 0;
        for (let i = 0; i < NEIGHBOUR_EVENTS; i++) {
          const r = await stage(svc.baseUrl, token, s.documentId!, contentOf(0));
          if (r.status !== 201) stagingErrors++;
          const next = started + (i + 1) * NEIGHBOUR_SPACING_MS;
          if (next > Date.now()) await sleep(next - Date.now());
        }
        await sleep(500);
        const produced = total(await deliveryCounts(dbUrl, webhookId)) - total(before);
        await waitFor(receiver, produced, 15_000);
        cpu.end();
        const rssMb = rss.stop();
        const { loopP99Ms, loopNote } = await loopEnd();
        out.push({
          id: '5c',
          name,
          available: true,
          rps: receiver.rate(),
          p50: receiver.percentile(50),
          p99: receiver.percentile(99),
          errors: Math.max(0, produced - receiver.received) + stagingErrors,
          rssMb,
          cpu: cpu.cost(produced),
          loopP99Ms,
          note: `${receiver.received}/${produced} events arrived, one staging every ${NEIGHBOUR_SPACING_MS} ms (${stagingErrors} staging errors), ${receiver.duplicates} duplicates; p50/p99 = payload timestamp → arrival; before: ${aBefore}; after: ${await aState()}${loopNote}`,
        });
      } else {
        out.push(unavailable('5c', NAMES_5['5c']!, 'not run (BENCH_ONLY)'));
      }
      if (wanted('5d')) {
        const row = await drain('5d', webhookId, receiver);
        out.push({ ...row, note: `${row.note}; beside ${await aState()}` });
      } else {
        out.push(unavailable('5d', NAMES_5['5d']!, 'not run (BENCH_ONLY)'));
      }
      await setStatus(token, webhookId, 'revoked');
      return out;
    } finally {
      // A's webhooks are revoked (its backlog is cancelled as attempts come back), so that the
      // next adapter's turn starts without it and may create its own 50
      for (const id of hooksA) await setStatus(a.token, id, 'revoked').catch(() => undefined);
      await cancelNeighbourBacklog(dbUrl, a.tenantId);
      await receiver.stop();
      await hanging.stop();
    }
  }
}

/** Tenant A's backlog: NEIGHBOUR_DELIVERIES / webhooks events, one queued delivery per webhook. */
async function seedNeighbourBacklog(
  dbUrl: string,
  tenantId: number,
  webhookIds: number[],
): Promise<number> {
  const events = Math.ceil(NEIGHBOUR_DELIVERIES / webhookIds.length);
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const tag = randomBytes(4).toString('hex');
    await client.query(
      `INSERT INTO events (event_id, tenant_id, type, payload)
       SELECT 'evt_neighbour_' || $3 || '_' || n, $1::int, 'document.checked_in',
              jsonb_build_object('n', n)
         FROM generate_series(1, $2::int) n`,
      [tenantId, events, tag],
    );
    const r = await client.query(
      `INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
       SELECT $1, w, e.id
         FROM events e CROSS JOIN unnest($2::int[]) w
        WHERE e.tenant_id = $1 AND e.event_id LIKE 'evt_neighbour_' || $3 || '_%'`,
      [tenantId, webhookIds, tag],
    );
    await client.query('COMMIT');
    return r.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** Tenant A's deliveries by status. */
async function neighbourCounts(dbUrl: string, tenantId: number): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 GROUP BY status',
      [tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await client.end();
  }
}

/** What is left of A's backlog once its webhooks are revoked: not sent in later rows. */
async function cancelNeighbourBacklog(dbUrl: string, tenantId: number): Promise<void> {
  await adminQuery(
    dbUrl,
    `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now()
      WHERE tenant_id = ${Number(tenantId)} AND status IN ('queued', 'retry')`,
  ).catch((err: unknown) => log(`cancelling tenant A's backlog: ${String(err)}`));
}

/**
 * Issue 18 item 5: the token endpoint's answer time for a known client id with a wrong secret, an
 * unknown id and a disabled id, interleaved one request each, sequentially (one connection, no
 * load): the three medians must not tell the cases apart. Rows 8a, 8b, 8c.
 */
async function tokenTimingScenario(
  svc: ManagedProcess,
  s: Seed,
  disabledClientId: string | undefined,
  names: [string, string, string],
): Promise<Measured[]> {
  const ids = ['8a', '8b', '8c'];
  if (!s.clientId || !disabledClientId) {
    return ids.map((id, i) => unavailable(id, names[i]!, 'no client'));
  }
  const wrongSecret = `gcs_${'0'.repeat(43)}`;
  const cases = [s.clientId, `gci_${'1'.repeat(49)}`, disabledClientId];
  const ask = async (clientId: string): Promise<{ ms: number; status: number }> => {
    const started = performance.now();
    const res = await fetch(`${svc.baseUrl}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: wrongSecret,
      }),
    });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  };
  // unmeasured: the JIT, and the look-ups the cache keeps afterwards
  for (let i = 0; i < 200; i++) for (const c of cases) await ask(c);
  const samples: number[][] = cases.map(() => []);
  const statuses: number[][] = cases.map(() => []);
  const started = performance.now();
  for (let i = 0; i < TIMING_SAMPLES; i++) {
    for (const [k, c] of cases.entries()) {
      const r = await ask(c);
      samples[k]!.push(r.ms);
      statuses[k]!.push(r.status);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const at = (sorted: number[], q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return ids.map((id, k) => {
    const sorted = [...samples[k]!].sort((x, y) => x - y);
    const errors = statuses[k]!.filter((status) => status !== 401).length;
    return {
      id,
      name: names[k]!,
      available: true,
      rps: TIMING_SAMPLES / seconds,
      p50: at(sorted, 0.5),
      p99: at(sorted, 0.99),
      errors,
      note: `${TIMING_SAMPLES} sequential requests, interleaved with the other two rows; every answer 401 invalid_client expected`,
    };
  });
}

/** Bytes in a file (0 if it does not exist yet). */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * The adapter the service reports in its "listening" log line (`http_adapter`), written at or after
 * `from` in its log; polls briefly, since the line may follow the readiness probe's first 200.
 * Undefined when the line never shows (e.g. `BENCH_LOG_LEVEL=warn`).
 */
async function adapterInLog(file: string, from: number): Promise<string | undefined> {
  for (let i = 0; i < 40; i++) {
    let text = '';
    try {
      text = readFileSync(file).subarray(from).toString('utf8');
    } catch {
      // not written yet
    }
    const found = [...text.matchAll(/"http_adapter":"([a-z]+)"/g)].at(-1)?.[1];
    if (found) return found;
    await sleep(50);
  }
  return undefined;
}

/**
 * The service on one adapter at a time, on the one data directory (or database). `use` restarts
 * it on another adapter when asked for one that is not running; every such start is on the warm
 * data directory and is recorded, as is the VmHWM of every process before it stops.
 */
class Service {
  private current: { adapter: Adapter; proc: ManagedProcess } | undefined;
  /** Adapters the service could not start on, and why: not tried again. */
  private readonly failed = new Map<Adapter, string>();
  readonly warmStartsMs: Partial<Record<Adapter, number[]>> = {};
  readonly hwmMb: Partial<Record<Adapter, number>> = {};

  constructor(private readonly start: (adapter: Adapter) => Promise<ManagedProcess>) {}

  async use(adapter: Adapter): Promise<ManagedProcess> {
    if (this.current?.adapter === adapter) return this.current.proc;
    const failure = this.failed.get(adapter);
    if (failure) throw new Error(failure);
    await this.stop();
    log(`starting the service on ${adapter} (warm data directory)`);
    try {
      const proc = await this.start(adapter);
      this.current = { adapter, proc };
      (this.warmStartsMs[adapter] ??= []).push(proc.readyMs);
      log(`ready on ${adapter} in ${proc.readyMs.toFixed(0)} ms`);
      return proc;
    } catch (err) {
      const why = `the service did not start on ${adapter}: ${err instanceof Error ? err.message : String(err)}`;
      this.failed.set(adapter, why);
      throw new Error(why);
    }
  }

  async stop(): Promise<void> {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    const hwm = readRssMb(c.proc.pid, 'VmHWM');
    if (hwm !== null) this.hwmMb[c.adapter] = Math.max(this.hwmMb[c.adapter] ?? 0, hwm);
    await c.proc.stop();
  }
}

async function main(): Promise<void> {
  const unknown = ADAPTER_NAMES.filter(
    (name) => !(ADAPTER_ORDER as readonly string[]).includes(name),
  );
  if (unknown.length || !ADAPTERS.length) {
    throw new Error(
      `BENCH_ADAPTERS: unknown adapter ${unknown.join(', ') || '(none given)'}; known: ${ADAPTER_ORDER.join(', ')}`,
    );
  }
  const startedAt = new Date();
  const work = await mkdtemp(join(tmpdir(), 'grc-bench-'));
  await chmod(work, 0o755);
  log(`work directory ${work}; adapters ${ADAPTERS.join(', ')}`);
  const db = await prepareDatabase(work);
  const serviceEnv = {
    // npm start's environment (glibc's malloc settings) as well as its flags
    ...startScriptEnv(ROOT),
    ...db.env,
    SEED_DEMO: 'false',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    // the load generator is one address, with up to 1024 connections (BENCH_CONNECTIONS)
    MAX_CONNECTIONS_PER_ADDRESS: '4096',
    // capacity is measured, not the per-credential quota: limits stay on (their cost counts) but high
    RATE_LIMIT_API_PER_MINUTE: process.env.RATE_LIMIT_API_PER_MINUTE ?? '1000000000',
    RATE_LIMIT_TOKEN_PER_MINUTE: process.env.RATE_LIMIT_TOKEN_PER_MINUTE ?? '1000000000',
    RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE:
      process.env.RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE ?? '1000000000',
    // /metrics on the API port, for each row's event-loop delay (bench/event-loop.ts)
    METRICS_TOKEN,
  };
  const profileDir = resolve(ROOT, 'bench/.tmp/profiles');
  // the service runs with the flags of `npm start` (package.json), which the Dockerfile repeats
  const nodeArgs = [
    ...startScriptFlags(ROOT),
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    // extra V8/Node flags for experiments (e.g. `--trace-gc`); recorded in RESULTS.md
    ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
  ];

  /** The service on `adapter`, its log in service-<adapter>.log (appended across restarts). */
  const start = async (adapter: Adapter): Promise<ManagedProcess> => {
    const logFile = join(work, `service-${adapter}.log`);
    const from = sizeOf(logFile);
    const proc = await startProcess({
      script: 'dist/src/main.js',
      cwd: SERVICE_ROOT,
      env: { ...serviceEnv, HTTP_ADAPTER: adapter },
      port: await freePort(),
      logFile,
      readyPath: '/health/ready',
      nodeArgs,
    });
    // a row labelled with the wrong adapter would be worse than no row
    const reported = await adapterInLog(logFile, from);
    if (reported && reported !== adapter) {
      await proc.stop();
      throw new Error(`started with HTTP_ADAPTER=${adapter}, it says it runs on ${reported}`);
    }
    if (!reported) log(`the service's log does not say which adapter it runs on (${logFile})`);
    return proc;
  };
  const service = new Service(start);
  const children: ManagedProcess[] = [];
  const cleanup = async (): Promise<void> => {
    for (const c of children.reverse()) await c.stop().catch(() => undefined);
    await service.stop().catch(() => undefined);
    await db.drop().catch((err: unknown) => log(`dropping the database: ${String(err)}`));
    if (!process.env.BENCH_KEEP) await rm(work, { recursive: true, force: true });
    else log(`kept ${work} (service-<adapter>.log, raw-floor.log, data)`);
  };
  process.once('SIGINT', () => {
    void cleanup().finally(() => process.exit(130));
  });

  const rows: Row[] = [];
  const info: RunInfo = {
    serviceSettings: [
      ...Object.entries(serviceEnv)
        .filter(([k]) => !['DATA_DIR', 'DATABASE_URL', 'WEBHOOK_SECRET_KEY'].includes(k))
        // a credential: its presence is shown, never its value
        .map(([k, v]) => `${k}=${k === 'METRICS_TOKEN' ? '(random)' : v}`),
      `HTTP_ADAPTER=${ADAPTERS.join('|')} (one per row)`,
    ].join(' '),
    nodeFlags: nodeArgs.join(' '),
    startedAt,
    durationSec: DURATION,
    warmupSec: WARMUP,
    mode: db.mode,
    loadAvg: loadavg(),
    adapters: ADAPTERS,
    warmStartsMs: service.warmStartsMs,
    serviceHwmMb: service.hwmMb,
    serviceProblems: [],
  };

  /**
   * Runs one scenario (or pair, or group) on every adapter, one after the other, and which adapter
   * goes first alternates from one group to the next (E F, F E, E F, …): the service is restarted
   * once per group, never between two runs on the same adapter, and neither adapter is always the
   * one measured later (on a database that has grown, a host that has drifted). The warm-up before
   * each row absorbs the restart (JIT, the pool's new connections, PostgreSQL's caches).
   */
  let groupsRun = 0;
  const onEachAdapter = async (
    scenarios: [id: string, name: string][],
    run: (svc: ManagedProcess, adapter: Adapter) => Promise<Measured[]>,
  ): Promise<void> => {
    if (!scenarios.some(([id]) => wanted(id))) {
      for (const adapter of ADAPTERS) {
        for (const [id, name] of scenarios) {
          rows.push({ ...unavailable(id, name, 'not run (BENCH_ONLY)'), adapter });
        }
      }
      return;
    }
    const order = groupsRun++ % 2 === 0 ? ADAPTERS : [...ADAPTERS].reverse();
    log(`scenarios ${scenarios.map(([id]) => id).join(', ')}: ${order.join(', then ')}`);
    for (const adapter of order) {
      let svc: ManagedProcess;
      try {
        svc = await service.use(adapter);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        log(why);
        if (!info.serviceProblems.includes(why)) info.serviceProblems.push(why);
        for (const [id, name] of scenarios) {
          rows.push({ ...unavailable(id, name, `service not started on ${adapter}`), adapter });
        }
        continue;
      }
      log(`on ${adapter}`);
      for (const r of await run(svc, adapter)) rows.push({ ...r, adapter });
    }
  };

  try {
    const first = ADAPTERS[0]!;
    log(`starting the service (cold, ${db.mode} database, ${first})`);
    const cold = await start(first);
    info.coldStart = { adapter: first, ms: cold.readyMs };
    await cold.stop();
    log(`cold start ${cold.readyMs.toFixed(0)} ms; restarting on the warm data directory`);
    const seeding = await service.use(first);

    const s = await seed(seeding, db.env, work);
    info.seed = {
      projects: s.projects,
      versions: s.versions,
      problems: s.problems,
    };
    // issue 24: the big tenant, only when one of its scenarios runs (it takes a minute or two)
    const GROUP_7 = ['7a', '7b', '7c', '7h', '7d', '7e', '7f', '7g'];
    let big: BigTenant | undefined;
    let bigProblem = 'not seeded';
    if (GROUP_7.some(wanted)) {
      const t = Date.now();
      try {
        big = await seedBigTenant(seeding.baseUrl, db.env, db.url(), ALL_SCOPES, log);
        log(`seed: big tenant (${Date.now() - t} ms)`);
      } catch (err) {
        bigProblem = `big tenant seed failed: ${err instanceof Error ? err.message : String(err)}`;
        s.problems.push(bigProblem);
        log(bigProblem);
      }
    }
    // autovacuum's first pass over the freshly seeded tables would otherwise fall in the first
    // group's first turn, on one adapter only
    const vacuumStarted = Date.now();
    await adminQuery(db.url(), 'VACUUM ANALYZE').then(
      () => log(`VACUUM ANALYZE after the seed (${Date.now() - vacuumStarted} ms)`),
      (err: unknown) => log(`VACUUM ANALYZE after the seed failed: ${String(err)}`),
    );
    const auth = s.token ? { authorization: `Bearer ${s.token}` } : undefined;
    const docPath = `/api/v1/documents/${s.documentId}`;

    // 1. authenticated document read, then 6. the raw floor right after it, on the same database
    const s1 = 'GET /documents/{id} (authenticated)';
    const s6 = 'raw floor: node:http + pg, same SQL as 1';
    await onEachAdapter(
      [
        ['1', s1],
        ['6', s6],
      ],
      async (svc, adapter) => {
        const out: Measured[] = [];
        const why1 = !s.documentId
          ? 'seed incomplete'
          : await probe(svc.baseUrl, 'GET', docPath, 200, { token: s.token });
        out.push(
          why1
            ? unavailable('1', s1, why1)
            : await measure(
                '1',
                `${s1}, ${s.versions} versions`,
                svc.pid,
                (seconds) =>
                  load({ url: `${svc.baseUrl}${docPath}`, headers: auth, durationSec: seconds }),
                '',
                loopOf(svc),
              ),
        );
        if (!wanted('6')) {
          out.push(unavailable('6', s6, 'not run (BENCH_ONLY)'));
          return out;
        }
        if (why1) {
          out.push(unavailable('6', s6, 'scenario 1 not available'));
          return out;
        }
        const floor = await startProcess({
          script: 'dist/bench/raw-floor.js',
          env: { DATABASE_URL: db.url() },
          port: await freePort(),
          logFile: join(work, 'raw-floor.log'),
          readyPath: '/ready',
        });
        children.push(floor);
        try {
          const why6 = await probe(floor.baseUrl, 'GET', docPath, 200, { token: s.token });
          out.push(
            why6
              ? unavailable('6', s6, why6)
              : await measure(
                  '6',
                  s6,
                  floor.pid,
                  (seconds) =>
                    load({
                      url: `${floor.baseUrl}${docPath}`,
                      headers: auth,
                      durationSec: seconds,
                    }),
                  `right after row 1 on ${adapter}, that service idle; RSS column: the raw floor process`,
                ),
          );
        } finally {
          await floor.stop();
          children.splice(children.indexOf(floor), 1);
        }
        return out;
      },
    );

    // issue 3: the cost of authentication, on a route that does nothing else
    const missing = '/api/v1/bench-no-such-route';
    const s3a = 'GET unknown route, valid token → 404 (auth look-up)';
    const s3b = 'GET unknown route, no token → 401 (no DB)';
    await onEachAdapter(
      [
        ['3a', s3a],
        ['3b', s3b],
      ],
      async (svc) => {
        const whyA = !s.token
          ? 'no token'
          : ((await probe(svc.baseUrl, 'GET', missing, 404, { token: s.token })) ??
            (await probe(svc.baseUrl, 'GET', missing, 401)));
        if (whyA) return [unavailable('3a', s3a, whyA), unavailable('3b', s3b, whyA)];
        return measureInterleaved(
          {
            id: '3a',
            name: s3a,
            note: 'issue 3 pair (authenticated)',
            run: (seconds) =>
              load({
                url: `${svc.baseUrl}${missing}`,
                headers: auth,
                durationSec: seconds,
                expectStatus: 404,
              }),
          },
          {
            id: '3b',
            name: s3b,
            note: 'issue 3 pair (unauthenticated)',
            run: (seconds) =>
              load({ url: `${svc.baseUrl}${missing}`, durationSec: seconds, expectStatus: 401 }),
          },
          svc.pid,
          PAIR_ROUNDS,
        );
      },
    );

    // 2. project list
    const s2 = `GET /projects?limit=50 (${s.projects} projects)`;
    await onEachAdapter([['2', s2]], async (svc) => {
      const why2 = !s.projects
        ? 'seed incomplete'
        : await probe(svc.baseUrl, 'GET', '/api/v1/projects?limit=50', 200, { token: s.token });
      return [
        why2
          ? unavailable('2', s2, why2)
          : await measure(
              '2',
              s2,
              svc.pid,
              (seconds) =>
                load({
                  url: `${svc.baseUrl}/api/v1/projects?limit=50`,
                  headers: auth,
                  durationSec: seconds,
                }),
              '',
              loopOf(svc),
            ),
      ];
    });

    // 7. issue 24: lists of a big tenant (bench/big-tenant.ts)
    const s7: Record<string, string> = {
      '7a': `GET /projects?limit=50, ${BIG.smallProjects}-project tenant`,
      '7b': `GET /projects?limit=50, ${BIG.projects.toLocaleString('en')}-project tenant`,
      '7c': `GET /projects/{id}/documents, first 1,000-row page of ${BIG.documents.toLocaleString('en')}`,
      '7h': 'GET /projects/{id}/documents, last 1,000-row page (cursor)',
      '7d': 'GET /webhook-deliveries?limit=50, first page of 1,000,000',
      '7e': 'GET /webhook-deliveries?limit=50, last page of 1,000,000 (cursor)',
      '7f': `GET /documents/{id}, ${BIG.versions.toLocaleString('en')} versions (index bounded at 1,000)`,
      '7g': `GET /documents/{id}, ${VERSIONS} versions, beside 7f`,
    };
    await onEachAdapter(
      GROUP_7.map((id) => [id, s7[id]!]),
      async (svc) => {
        const none = (why: string): Measured[] =>
          GROUP_7.map((id) => unavailable(id, s7[id]!, why));
        if (!big) return none(bigProblem);
        const b = big;
        const api = `${svc.baseUrl}/api/v1`;
        const paths: Record<string, [path: string, token: string]> = {
          '7a': ['/projects?limit=50', b.smallToken],
          '7b': ['/projects?limit=50', b.token],
          '7c': [`/projects/${b.projectId}/documents`, b.token],
          '7h': [`/projects/${b.projectId}/documents?cursor=${b.lastDocumentPage}`, b.token],
          '7d': ['/webhook-deliveries?limit=50', b.token],
          '7e': [`/webhook-deliveries?limit=50&cursor=${b.lastDeliveryPage}`, b.token],
          '7f': [`/documents/${b.documentId}`, b.token],
          '7g': [docPath.replace('/api/v1', ''), s.token ?? ''],
        };
        for (const id of GROUP_7) {
          const [path, token] = paths[id]!;
          const why = await probe(svc.baseUrl, 'GET', `/api/v1${path}`, 200, { token });
          if (why) return none(`${id}: ${why}`);
        }
        const run =
          (id: string) =>
          (seconds: number): Promise<LoadResult> => {
            const [path, token] = paths[id]!;
            return load({
              url: `${api}${path}`,
              headers: { authorization: `Bearer ${token}` },
              durationSec: seconds,
            });
          };
        const pair = (x: string, y: string, note: string) =>
          measureInterleaved(
            { id: x, name: s7[x]!, note, run: run(x) },
            { id: y, name: s7[y]!, note, run: run(y) },
            svc.pid,
            PAIR_ROUNDS,
          );
        return [
          ...(await pair('7a', '7b', 'issue 24: a page costs the same whatever the tenant size')),
          ...(await pair('7c', '7h', 'issue 24: first and last page of a cursor walk')),
          ...(await pair('7d', '7e', 'issue 24: first and last page of a cursor walk')),
          ...(await pair('7f', '7g', 'issue 24: the big document read beside the small one')),
        ];
      },
    );

    // 3. token endpoint
    const s3 = 'POST /oauth/token';
    const tokenBody = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: s.clientId,
      client_secret: s.clientSecret,
    });
    await onEachAdapter([['3', s3]], async (svc) => [
      !s.token
        ? unavailable('3', s3, 'no client')
        : await measure(
            '3',
            s3,
            svc.pid,
            (seconds) =>
              load({
                url: `${svc.baseUrl}/api/v1/oauth/token`,
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: tokenBody,
                durationSec: seconds,
              }),
            '',
            loopOf(svc),
          ),
    ]);

    // 7. token endpoint answer time: known id with a wrong secret, unknown id, disabled id
    const s8: [string, string, string] = [
      'POST /oauth/token timing: known client id, wrong secret',
      'POST /oauth/token timing: unknown client id',
      'POST /oauth/token timing: disabled client id',
    ];
    let disabledClientId: string | undefined;
    if (s.tenantId !== undefined && ['8a', '8b', '8c'].some(wanted)) {
      try {
        const created = await cli<{ client_id: string }>(db.env, [
          'client',
          'create',
          '--tenant',
          String(s.tenantId),
          '--name',
          'benchmark disabled',
          '--scopes',
          'projects:read',
        ]);
        await cli(db.env, ['client', 'disable', '--client', created.client_id]);
        disabledClientId = created.client_id;
      } catch (err) {
        log(`seed: disabled client FAILED: ${String(err)}`);
      }
    }
    await onEachAdapter(
      [
        ['8a', s8[0]],
        ['8b', s8[1]],
        ['8c', s8[2]],
      ],
      (svc) => tokenTimingScenario(svc, s, disabledClientId, s8),
    );

    // 4. staging with a 10 KiB body
    const s4 = 'POST /documents/{id}/external-revisions, 10 KiB body';
    const bigBody = JSON.stringify({
      content: { ...contentOf(0), appendix: 'x'.repeat(10 * 1024 - 150) },
      source_reference: 'bench',
    });
    /** Adapters on which staging answered its probe (the webhook scenario needs it). */
    const staging = new Map<Adapter, string | null>();
    const stagingProbe = (svc: ManagedProcess): Promise<string | null> =>
      !s.documentId
        ? Promise.resolve('seed incomplete')
        : probe(svc.baseUrl, 'POST', `${docPath}/external-revisions`, 201, {
            token: s.token,
            body: JSON.parse(bigBody),
          });
    await onEachAdapter([['4', s4]], async (svc, adapter) => {
      const why4 = await stagingProbe(svc);
      staging.set(adapter, why4);
      return [
        why4
          ? unavailable('4', s4, why4)
          : await measure(
              '4',
              s4,
              svc.pid,
              (seconds) =>
                load({
                  url: `${svc.baseUrl}${docPath}/external-revisions`,
                  method: 'POST',
                  headers: { ...auth, 'content-type': 'application/json' },
                  body: bigBody,
                  durationSec: seconds,
                }),
              `body ${Buffer.byteLength(bigBody)} bytes`,
              loopOf(svc),
            ),
      ];
    });

    // 5. webhooks: 5a/5b on their own, 5c/5d beside a noisy neighbour (tenant A, made once)
    let neighbour: Promise<SeededTenant> | undefined;
    /** Tenant A, its client and a token (kept in the database, so valid after a restart). */
    const makeNeighbour = (baseUrl: string): Promise<SeededTenant> =>
      (neighbour ??= seedTenant(
        baseUrl,
        db.env,
        { tenant: 'Noisy neighbour', client: 'neighbour' },
        'webhooks:read webhooks:write',
      ));
    await onEachAdapter(
      IDS_5.map((id) => [id, NAMES_5[id]!]),
      async (svc, adapter) => {
        // scenario 4 probed staging on this adapter, unless BENCH_ONLY left it out
        const why = staging.has(adapter) ? staging.get(adapter) : await stagingProbe(svc);
        if (why) {
          return IDS_5.map((id) => unavailable(id, NAMES_5[id]!, `staging not available: ${why}`));
        }
        return webhookScenario(
          svc,
          db.url(),
          s,
          JSON.stringify({ content: contentOf(0) }),
          () => makeNeighbour(svc.baseUrl),
          loopOf(svc),
        );
      },
    );

    // 9. issue 23: scenario 1 through PgBouncer beside direct, and the soak (bench/pooled.ts);
    // the service keeps the database up meanwhile (in embedded mode it runs the PostgreSQL)
    const soakAdapter = ADAPTERS[0]!;
    await onEachAdapter(
      IDS_9.map((id) => [id, NAMES_9[id]!]),
      async (svc, adapter) => {
        const out = await pooledGroup({
          adapter,
          databaseUrl: db.url(),
          secretKey: db.secretKey(),
          serviceEnv: Object.fromEntries(
            Object.entries(serviceEnv).filter(([k]) => !['DATA_DIR', 'DATABASE_URL'].includes(k)),
          ),
          nodeArgs,
          work,
          token: s.token,
          documentId: s.documentId,
          versions: s.versions,
          soakSkipped:
            adapter === soakAdapter
              ? null
              : `the soak runs once, on ${soakAdapter} (the first of BENCH_ADAPTERS)`,
          warmupSec: WARMUP,
          durationSec: DURATION,
          wanted,
          pair: (a, b) => measureInterleaved(a, b, svc.pid, PAIR_ROUNDS),
          log,
        });
        if (out.soak) info.soak = out.soak;
        return out.rows;
      },
    );

    // 10. issue 39 item 4: heavy content beside another tenant's reads (bench/heavy-content.ts)
    let heavy: Promise<HeavySetup> | undefined;
    await onEachAdapter(
      IDS_10.map((id) => [id, NAMES_10[id]!]),
      (svc) =>
        heavyContentGroup({
          svc,
          dbUrl: db.url(),
          token: s.token,
          setup: () => {
            if (!s.projectId) return Promise.reject(new Error('seed incomplete'));
            heavy ??= heavySetup(svc.baseUrl, db.env, work, s.projectId);
            return heavy;
          },
          durationSec: DURATION,
          warmupSec: WARMUP,
          wanted,
          loop: loopOf(svc),
          log,
        }),
    );

    // records the VmHWM of the last service process
    await service.stop();
  } finally {
    await cleanup();
  }
  info.finishedAt = new Date();
  const scrapes = loopWindows.flatMap((w) => w.scrapeMs).sort((a, b) => a - b);
  if (scrapes.length) {
    info.loopScrapes = `${scrapes.length} scrapes of /metrics, median ${scrapes[scrapes.length >> 1]!.toFixed(1)} ms, slowest ${scrapes.at(-1)!.toFixed(1)} ms (each outside its row's measured window)`;
  }
  const targets = evaluateTargets(rows, info);
  printTable(rows, targets, info);
  const partial = ONLY || ADAPTERS.length < ADAPTER_ORDER.length;
  const results = partial ? 'bench/.tmp/RESULTS-partial.md' : 'bench/RESULTS.md';
  await writeResults(resolve(ROOT, results), rows, targets, info);
  log(`wrote ${results}`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
