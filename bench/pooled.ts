/**
 * Group 9 of `npm run bench` (issue 23), called by run.ts on each adapter's turn while the
 * benchmark's own service keeps its database up (the embedded PostgreSQL lives in that process):
 *
 * - **9a / 9b**: scenario 1 (`GET /documents/{id}`, scenario 1's seeded document and token) on two
 *   more service processes on the same database: one behind a real PgBouncer in transaction mode
 *   (pool of 10 server connections for the service's 20, nothing prepared, LISTEN on PostgreSQL
 *   itself), one connected to PostgreSQL (`DATABASE_POOL_MODE=session`, statements prepared);
 *   measured in alternating rounds.
 * - **9c, the soak** (once per run, on the first adapter): through PgBouncer, on a fresh database
 *   of the same server, tokens (ttl 300 s, the minimum) and stagings (an event and a webhook
 *   delivery each, to a local receiver) go on for BENCH_SOAK seconds with retention on a short
 *   window (tokens deleted as they expire, events after 20 s, a sweep every second); the row
 *   counts are sampled every 5 s, and the read path is measured at the start and at the end,
 *   under that same load. What "bounded" means: soak-bounds.ts.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { startPgBouncer, type PgBouncer } from '../test/support/pgbouncer.js';
import {
  cli,
  contentOf,
  freePort,
  http,
  load,
  type LoadResult,
  type ManagedProcess,
  readRssMb,
  ROOT,
  RssSampler,
  runJson,
  sleep,
  startProcess,
  adminQuery,
} from './harness.js';
import { type Adapter, type Measured, unavailable } from './report.js';
import { SOAK_TABLES, type SoakInfo, type SoakSample, type SoakTable } from './soak-bounds.js';
import { WebhookReceiver } from './webhook-receiver.js';

/**
 * Seconds of the soak's load. Tokens live 300 s (the minimum ttl) and are deleted as they expire:
 * the plateau shows from ~315 s on, and the token bound needs 60 s of it (soak-bounds.ts).
 */
export const SOAK = Number(process.env.BENCH_SOAK ?? 420);
const TOKEN_TTL = 300;
const TOKEN_GRACE = 0;
const EVENT_WINDOW = 20;
const SWEEP_MS = 1000;
const SAMPLE_EVERY_MS = 5000;
/** Seconds into the load the read path's start window opens. */
const START_AFTER = 30;
/** Loops issuing tokens and loops staging, each one request at a time. */
const TOKEN_LOOPS = 4;
const STAGING_LOOPS = 4;
/** PgBouncer's server connections per database, for the service's pool of 20. */
const BOUNCER_POOL = 10;

export const IDS_9 = ['9a', '9b', '9c'];
export const NAMES_9: Record<string, string> = {
  '9a': `GET /documents/{id} through PgBouncer (transaction mode, pool ${BOUNCER_POOL}, nothing prepared)`,
  '9b': 'GET /documents/{id} direct (session mode, prepared), beside 9a',
  '9c': `soak ${SOAK} s through PgBouncer: tokens + stagings, retention on a short window; the read path at the end`,
};

export interface PairSide {
  id: string;
  name: string;
  note: string;
  pid: number;
  run: (seconds: number) => Promise<LoadResult>;
}

export interface PooledContext {
  adapter: Adapter;
  /** Scenario 1's database (seeded), on the server PgBouncer is put in front of. */
  databaseUrl: string;
  /** The benchmark service's WEBHOOK_SECRET_KEY (its DATA_DIR's in embedded mode). */
  secretKey: string;
  /** The service's settings without a database (log level, rate limits, …). */
  serviceEnv: Record<string, string>;
  nodeArgs: string[];
  /** Directory for the processes' logs and the soak's content file. */
  work: string;
  token?: string;
  documentId?: number;
  versions: number;
  /** Null: this turn runs the soak; else why not (it runs once, on the first adapter). */
  soakSkipped: string | null;
  warmupSec: number;
  durationSec: number;
  wanted: (id: string) => boolean;
  /** 9a and 9b in alternating rounds (run.ts's measureInterleaved). */
  pair: (a: PairSide, b: PairSide) => Promise<[Measured, Measured]>;
  log: (msg: string) => void;
}

const withDatabase = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Group 9 on one adapter: its rows, and the soak's figures when this turn ran it. */
export async function pooledGroup(
  ctx: PooledContext,
): Promise<{ rows: Measured[]; soak?: SoakInfo }> {
  const { wanted } = ctx;
  const pairWanted = wanted('9a') || wanted('9b');
  const soakWanted = wanted('9c') && ctx.soakSkipped === null;
  const rows: Measured[] = [];
  const database = new URL(ctx.databaseUrl).pathname.slice(1);
  const soakDb = soakWanted ? `grc_soak_${randomBytes(4).toString('hex')}` : undefined;
  if (soakDb) await adminQuery(ctx.databaseUrl, `CREATE DATABASE ${soakDb}`);
  let bouncer: PgBouncer | undefined;
  let soak: SoakInfo | undefined;
  try {
    bouncer = await startPgBouncer({
      serverUrl: ctx.databaseUrl,
      mode: 'transaction',
      poolSize: BOUNCER_POOL,
      databases: soakDb ? [database, soakDb] : [database],
    });
    const env = (direct: string, pooled: string | null): Record<string, string> => ({
      ...ctx.serviceEnv,
      HTTP_ADAPTER: ctx.adapter,
      WEBHOOK_SECRET_KEY: ctx.secretKey,
      ...(pooled
        ? {
            DATABASE_URL: pooled,
            DATABASE_POOL_MODE: 'transaction',
            DATABASE_POOL_SIZE: '20',
            DATABASE_LISTEN_URL: direct,
          }
        : { DATABASE_URL: direct, DATABASE_POOL_MODE: 'session' }),
    });
    const start = async (name: string, e: Record<string, string>): Promise<ManagedProcess> =>
      startProcess({
        script: 'dist/src/main.js',
        env: e,
        port: await freePort(),
        logFile: join(ctx.work, `service-${ctx.adapter}-${name}.log`),
        readyPath: '/health/ready',
        nodeArgs: ctx.nodeArgs,
      });

    if (!pairWanted) {
      rows.push(
        unavailable('9a', NAMES_9['9a']!, 'not run (BENCH_ONLY)'),
        unavailable('9b', NAMES_9['9b']!, 'not run (BENCH_ONLY)'),
      );
    } else if (!ctx.token || !ctx.documentId) {
      rows.push(
        unavailable('9a', NAMES_9['9a']!, 'seed incomplete'),
        unavailable('9b', NAMES_9['9b']!, 'seed incomplete'),
      );
    } else {
      rows.push(
        ...(await pair(ctx, {
          pooled: () =>
            start('pgbouncer', env(ctx.databaseUrl, withDatabase(bouncer!.url, database))),
          direct: () => start('direct', env(ctx.databaseUrl, null)),
        })),
      );
    }

    if (!wanted('9c')) {
      rows.push(unavailable('9c', NAMES_9['9c']!, 'not run (BENCH_ONLY)'));
    } else if (ctx.soakSkipped !== null) {
      rows.push(unavailable('9c', NAMES_9['9c']!, ctx.soakSkipped));
    } else {
      const direct = withDatabase(ctx.databaseUrl, soakDb!);
      try {
        const out = await runSoak(ctx, direct, (extra) =>
          start('soak', { ...env(direct, withDatabase(bouncer!.url, soakDb!)), ...extra }),
        );
        rows.push(out.row);
        soak = out.soak;
      } catch (err) {
        const why = `soak failed: ${err instanceof Error ? err.message : String(err)}`;
        ctx.log(why);
        rows.push(unavailable('9c', NAMES_9['9c']!, why));
      }
    }
  } finally {
    await bouncer?.stop();
    if (soakDb && !process.env.BENCH_KEEP) {
      await adminQuery(ctx.databaseUrl, `DROP DATABASE IF EXISTS ${soakDb} WITH (FORCE)`).catch(
        (err: unknown) => ctx.log(`dropping ${soakDb}: ${String(err)}`),
      );
    }
  }
  return { rows, soak };
}

/** 9a and 9b: both processes up, then alternating rounds of scenario 1 on each. */
async function pair(
  ctx: PooledContext,
  starts: { pooled: () => Promise<ManagedProcess>; direct: () => Promise<ManagedProcess> },
): Promise<Measured[]> {
  const procs: ManagedProcess[] = [];
  try {
    const pooled = await starts.pooled();
    procs.push(pooled);
    const direct = await starts.direct();
    procs.push(direct);
    const path = `/api/v1/documents/${ctx.documentId}`;
    for (const p of procs) {
      const r = await http(p.baseUrl, 'GET', path, { token: ctx.token });
      if (r.status !== 200) {
        const why = `probe GET ${path} answered ${r.status}`;
        return [unavailable('9a', NAMES_9['9a']!, why), unavailable('9b', NAMES_9['9b']!, why)];
      }
    }
    const run =
      (p: ManagedProcess) =>
      (seconds: number): Promise<LoadResult> =>
        load({
          url: `${p.baseUrl}${path}`,
          headers: { authorization: `Bearer ${ctx.token}` },
          durationSec: seconds,
        });
    // two fresh processes: their JIT and pools warm up before the pair's own warm-up round
    if (ctx.warmupSec > 0) {
      await run(pooled)(ctx.warmupSec);
      await run(direct)(ctx.warmupSec);
    }
    const doc = `${ctx.versions} versions, scenario 1's document and token`;
    return await ctx.pair(
      {
        id: '9a',
        name: NAMES_9['9a']!,
        note: `issue 23, ${doc}; LISTEN on PostgreSQL; own process (RSS, CPU)`,
        pid: pooled.pid,
        run: run(pooled),
      },
      {
        id: '9b',
        name: NAMES_9['9b']!,
        note: `issue 23, ${doc}; own process, started with 9a's settings but the database URL and pool mode`,
        pid: direct.pid,
        run: run(direct),
      },
    );
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

async function counts(client: pg.Client): Promise<Record<SoakTable, number>> {
  const { rows } = await client.query<Record<SoakTable, string>>(
    `SELECT ${SOAK_TABLES.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(', ')}`,
  );
  return Object.fromEntries(SOAK_TABLES.map((t) => [t, Number(rows[0]?.[t] ?? 0)])) as Record<
    SoakTable,
    number
  >;
}

const figures = (r: LoadResult) => ({
  rps: r.requestsPerSec,
  p50: r.p50,
  p99: r.p99,
  errors: r.errors,
});

/** 9c on a fresh, migrated database; `start` starts the service through PgBouncer on it. */
async function runSoak(
  ctx: PooledContext,
  direct: string,
  start: (extra: Record<string, string>) => Promise<ManagedProcess>,
): Promise<{ row: Measured; soak: SoakInfo }> {
  const name = NAMES_9['9c']!;
  ctx.log(`scenario 9c: ${name}`);
  const cliEnv = { DATABASE_URL: direct, WEBHOOK_SECRET_KEY: ctx.secretKey };
  await runJson(resolve(ROOT, 'dist/src/migrate-cli.js'), [], cliEnv);
  const tenant = await cli<{ tenant_id: number }>(cliEnv, [
    'tenant',
    'create',
    '--name',
    'Soak',
    '--plan',
    'enterprise',
  ]);
  const client = await cli<{ client_id: string; client_secret: string }>(cliEnv, [
    'client',
    'create',
    '--tenant',
    String(tenant.tenant_id),
    '--name',
    'soak',
    '--scopes',
    'documents:read revisions:write webhooks:read webhooks:write',
  ]);
  const project = await cli<{ projectId: number }>(cliEnv, [
    'project',
    'create',
    '--tenant',
    String(tenant.tenant_id),
    '--name',
    'Soak',
  ]);
  const contentFile = join(ctx.work, 'soak-content.json');
  await writeFile(contentFile, JSON.stringify(contentOf(1)));
  const doc = await cli<{ documentId: number }>(cliEnv, [
    'document',
    'create',
    '--project',
    String(project.projectId),
    '--title',
    'Soak',
    '--content-file',
    contentFile,
  ]);

  const receiver = new WebhookReceiver();
  await receiver.start();
  const db = new pg.Client({ connectionString: direct });
  let svc: ManagedProcess | undefined;
  let stop = true;
  const workers: Promise<void>[] = [];
  try {
    svc = await start({
      RETENTION_EVENT_SECONDS: String(EVENT_WINDOW),
      RETENTION_TOKEN_GRACE_SECONDS: String(TOKEN_GRACE),
      RETENTION_INTERVAL_MS: String(SWEEP_MS),
    });
    const baseUrl = svc.baseUrl;
    const pid = svc.pid;
    await db.connect();
    const credentials = {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    };
    const issued = await http(baseUrl, 'POST', '/api/v1/oauth/token', {
      body: { ...credentials, ttl: 86400 },
    });
    if (issued.status !== 200) throw new Error(`token: status ${issued.status}`);
    const token = (issued.body as { access_token: string }).access_token;
    const hook = await http(baseUrl, 'POST', '/api/v1/webhooks', {
      token,
      body: { name: 'soak', endpoint_url: `http://127.0.0.1:${receiver.port}/hook`, events: ['*'] },
    });
    if (hook.status !== 201) throw new Error(`webhook: status ${hook.status}`);
    const read = (seconds: number) =>
      load({
        url: `${baseUrl}/api/v1/documents/${doc.documentId}`,
        headers: { authorization: `Bearer ${token}` },
        durationSec: seconds,
      });
    const probe = await http(baseUrl, 'GET', `/api/v1/documents/${doc.documentId}`, { token });
    if (probe.status !== 200) throw new Error(`read probe: status ${probe.status}`);

    let tokens = 0;
    let stagings = 0;
    let failures = 0;
    const samples: SoakSample[] = [{ t: 0, counts: await counts(db), tokens: 0, stagings: 0 }];
    const began = performance.now();
    const at = (): number => (performance.now() - began) / 1000;
    stop = false;
    const loop = async (kind: 'token' | 'stage'): Promise<void> => {
      while (!stop) {
        try {
          const res =
            kind === 'token'
              ? await http(baseUrl, 'POST', '/api/v1/oauth/token', {
                  body: { ...credentials, ttl: TOKEN_TTL },
                })
              : await http(
                  baseUrl,
                  'POST',
                  `/api/v1/documents/${doc.documentId}/external-revisions`,
                  { token, body: { content: { soak: stagings } } },
                );
          if (res.status >= 300) failures += 1;
          else if (kind === 'token') tokens += 1;
          else stagings += 1;
        } catch {
          failures += 1;
          await sleep(100);
        }
      }
    };
    workers.push(
      ...Array.from({ length: TOKEN_LOOPS }, () => loop('token')),
      ...Array.from({ length: STAGING_LOOPS }, () => loop('stage')),
    );
    // on a fixed cadence; the counters read just before the counts
    const sampler = (async () => {
      let next = SAMPLE_EVERY_MS;
      while (!stop) {
        // short naps: the sampler ends with the load, not up to a period later
        while (!stop && at() * 1000 < next) await sleep(Math.min(250, next - at() * 1000));
        if (stop) break;
        const t = at();
        const created = { tokens, stagings };
        samples.push({ t, counts: await counts(db), ...created });
        next += SAMPLE_EVERY_MS;
      }
    })();
    workers.push(sampler);

    const rss = new RssSampler(pid).start();
    // the start is measured once the load has run START_AFTER s (pools, JIT and the load's
    // own rate settled), the reads' warm-up being its last seconds
    const startAt = Math.max(0, START_AFTER - ctx.warmupSec);
    while (at() < startAt) await sleep(Math.min(1000, (startAt - at()) * 1000));
    if (ctx.warmupSec > 0) await read(ctx.warmupSec);
    const startedAt = at();
    const first = await read(ctx.durationSec);
    const rssStartMb = readRssMb(pid) ?? undefined;
    ctx.log(`9c: read at the start p99 ${first.p99} ms; soaking until ${SOAK} s`);
    const endAt = SOAK - ctx.durationSec;
    while (at() < endAt) {
      await sleep(Math.min(30_000, (endAt - at()) * 1000));
      const last = samples.at(-1)!;
      ctx.log(
        `9c: ${at().toFixed(0)} s, ${tokens} tokens, ${stagings} stagings, ${failures} failed; ${JSON.stringify(last.counts)}`,
      );
    }
    const endedAt = at();
    const last = await read(ctx.durationSec);
    const rssEndMb = readRssMb(pid) ?? undefined;
    stop = true;
    const elapsedSec = at();
    await Promise.all(workers);
    samples.push({ t: elapsedSec, counts: await counts(db), tokens, stagings });
    const rssMb = rss.stop();
    // the last deliveries arrive right after the load stops
    await sleep(1000);
    const soak: SoakInfo = {
      adapter: ctx.adapter,
      seconds: SOAK,
      elapsedSec,
      tokenTtlSec: TOKEN_TTL,
      tokenGraceSec: TOKEN_GRACE,
      eventWindowSec: EVENT_WINDOW,
      sweepMs: SWEEP_MS,
      slackSec: 15,
      minSteadySec: 60,
      samples,
      start: figures(first),
      end: figures(last),
      startAtSec: startedAt,
      endAtSec: endedAt,
      failures,
      delivered: receiver.received,
      rssStartMb,
      rssEndMb,
    };
    const end = samples.at(-1)!.counts;
    const row: Measured = {
      id: '9c',
      name,
      available: true,
      rps: last.requestsPerSec,
      p50: last.p50,
      p99: last.p99,
      errors: failures + first.errors + last.errors,
      rssMb,
      note: [
        `figures: the read path (GET /documents/{id}, 1 version, 32 connections) for the last ${ctx.durationSec} s`,
        `at the start (${startedAt.toFixed(0)}-${(startedAt + ctx.durationSec).toFixed(0)} s into the load, after ${ctx.warmupSec} s of reads unmeasured): ${first.requestsPerSec.toFixed(0)} req/s, p99 ${first.p99} ms; at the end (from ${endedAt.toFixed(0)} s) p99 ${last.p99} ms: end/start ${(last.p99 / Math.max(first.p99, 1)).toFixed(2)} ×`,
        `meanwhile ${TOKEN_LOOPS} loops issued ${tokens} tokens (${(tokens / elapsedSec).toFixed(0)}/s, ttl ${TOKEN_TTL} s) and ${STAGING_LOOPS} staged ${stagings} revisions (${(stagings / elapsedSec).toFixed(0)}/s), ${failures} failed; ${receiver.received} events arrived at the webhook receiver, ${receiver.duplicates} duplicates`,
        `RETENTION_TOKEN_GRACE_SECONDS=${TOKEN_GRACE} RETENTION_EVENT_SECONDS=${EVENT_WINDOW} RETENTION_INTERVAL_MS=${SWEEP_MS}`,
        `rows at the end: ${SOAK_TABLES.map((t) => `${t} ${end[t]}`).join(', ')}`,
        `RSS ${rssStartMb?.toFixed(0) ?? '–'} MB after the start window, ${rssEndMb?.toFixed(0) ?? '–'} MB at the end`,
        `errors: failed soak requests + read errors`,
      ].join('; '),
    };
    return { row, soak };
  } finally {
    stop = true;
    await Promise.all(workers).catch(() => undefined);
    await db.end().catch(() => undefined);
    await svc?.stop();
    await receiver.stop();
  }
}
