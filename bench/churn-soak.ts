/**
 * Churn soak (issue 39 item 6): do the delivery tables stay small between vacuums?
 *
 * The service runs with its workers and retention on a short window; events are published at
 * CHURN_RATE per second (default 200) to CHURN_WEBHOOKS webhooks (default 5), each a local
 * receiver answering 200, for CHURN_MINUTES (default 15). The events are written by the outbox's
 * own statement shape (an event, one delivery per webhook, a notify), in one statement per 100 ms,
 * so the load generator costs little. Every 30 s it samples, per churn table, the total and index
 * bytes, live and dead rows, updates and HOT updates, and autovacuum runs; the table is printed
 * at the end (markdown, for bench/README.md).
 *
 * DATABASE_URL: a server to make a fresh database on (its autovacuum setting is printed: a server
 * with autovacuum off shows growth only). Unset: the service's embedded PostgreSQL in a temporary
 * DATA_DIR, with PostgreSQL's shipped settings (autovacuum on).
 *
 * Run: `npm run build && tsc -p bench/tsconfig.json && node dist/bench/churn-soak.js`.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cli, freePort, http, sleep, startProcess } from './harness.js';
import { prepareBenchDatabase } from './bench-database.js';
import { WebhookReceiver } from './webhook-receiver.js';

const MINUTES = Number(process.env.CHURN_MINUTES ?? 15);
const RATE = Number(process.env.CHURN_RATE ?? 200);
const WEBHOOKS = Number(process.env.CHURN_WEBHOOKS ?? 5);
const RETENTION_SECONDS = Number(process.env.CHURN_RETENTION_SECONDS ?? 10);
const SAMPLE_MS = 30_000;
const TABLES = ['webhook_deliveries', 'webhook_delivery_attempts', 'events', 'webhooks'];

const log = (msg: string): void => void process.stderr.write(`[churn] ${msg}\n`);

interface Sample {
  at: number;
  table: string;
  total: number;
  indexes: number;
  live: number;
  dead: number;
  upd: number;
  hot: number;
  autovacuums: number;
}

const SAMPLE_SQL = `SELECT relname AS table, pg_total_relation_size(relid)::float8 AS total,
       pg_indexes_size(relid)::float8 AS indexes, n_live_tup::float8 AS live,
       n_dead_tup::float8 AS dead, n_tup_upd::float8 AS upd, n_tup_hot_upd::float8 AS hot,
       autovacuum_count::float8 AS autovacuums
  FROM pg_stat_user_tables WHERE relname = ANY($1::text[]) ORDER BY relname`;

/** One tick's events, one delivery per webhook of the tenant, as the outbox writes them. */
const PUBLISH_SQL = `WITH ev AS (
    INSERT INTO events (event_id, tenant_id, type, payload)
    SELECT 'evt_churn_' || $2 || '_' || ($3::bigint + n), $1::int, 'document.checked_in',
           jsonb_build_object('id', 'evt_churn_' || $2 || '_' || ($3::bigint + n),
                              'type', 'document.checked_in', 'timestamp', now(),
                              'tenant_id', $1::int, 'data', jsonb_build_object('documentId', n))
      FROM generate_series(1, $4::int) n
    RETURNING id
  ), d AS (
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
    SELECT $1::int, w.id, ev.id FROM webhooks w CROSS JOIN ev
     WHERE w.tenant_id = $1::int AND w.status IN ('active', 'paused')
    RETURNING 1
  )
  SELECT pg_notify('webhook_deliveries', '') AS notified, (SELECT count(*) FROM d)::int AS n`;

/** A tenant with `WEBHOOKS` webhooks, one receiver each, through the CLI and the API. */
async function seed(baseUrl: string, env: Record<string, string>, receivers: WebhookReceiver[]) {
  const t = await cli<{ tenant_id: number }>(env, [
    'tenant',
    'create',
    '--name',
    'Churn',
    '--plan',
    'enterprise',
  ]);
  const c = await cli<{ client_id: string; client_secret: string }>(env, [
    ...['client', 'create', '--tenant', String(t.tenant_id), '--name', 'churn'],
    ...['--scopes', 'webhooks:write'],
  ]);
  const token = await http(baseUrl, 'POST', '/api/v1/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: c.client_id,
      client_secret: c.client_secret,
    },
  });
  const auth = (token.body as { access_token: string }).access_token;
  for (const [i, r] of receivers.entries()) {
    const created = await http(baseUrl, 'POST', '/api/v1/webhooks', {
      token: auth,
      body: { name: `churn ${i}`, endpoint_url: `http://127.0.0.1:${r.port}/`, events: ['*'] },
    });
    if (created.status !== 201) throw new Error(`POST /webhooks: ${created.status}`);
  }
  return t.tenant_id;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

function printTable(samples: Sample[], first: Map<string, Sample>): void {
  const out = [
    '| t (s) | table | total MB | index MB | live | dead | updates | HOT % | autovacuums |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of samples) {
    const base = first.get(s.table)!;
    const upd = s.upd - base.upd;
    const hot = upd > 0 ? ((100 * (s.hot - base.hot)) / upd).toFixed(0) : '-';
    out.push(
      `| ${s.at} | ${s.table} | ${mb(s.total)} | ${mb(s.indexes)} | ${s.live} | ${s.dead} | ${upd} | ${hot} | ${s.autovacuums} |`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'grc-churn-'));
  await chmod(work, 0o755);
  const db = await prepareBenchDatabase(work, 'grc_churn', { stopEmbedded: true });
  const receivers = Array.from({ length: WEBHOOKS }, () => new WebhookReceiver());
  for (const r of receivers) await r.start();
  const svc = await startProcess({
    script: 'dist/src/main.js',
    env: {
      ...db.env,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      WORKERS_ENABLED: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RETENTION_EVENT_SECONDS: String(RETENTION_SECONDS),
      RETENTION_INTERVAL_MS: '5000',
    },
    port: await freePort(),
    logFile: join(work, 'service.log'),
    readyPath: '/health/ready',
  });
  const client = new pg.Client({ connectionString: db.url() });
  try {
    await client.connect();
    const tenantId = await seed(svc.baseUrl, db.env, receivers);
    const settings = await client.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings
        WHERE name IN ('server_version', 'autovacuum', 'autovacuum_naptime') ORDER BY name`,
    );
    log(settings.rows.map((r) => `${r.name}=${r.setting}`).join(' '));
    log(
      `${MINUTES} min at ${RATE} events/s to ${WEBHOOKS} webhooks, retention ${RETENTION_SECONDS} s`,
    );
    const samples: Sample[] = [];
    const first = new Map<string, Sample>();
    const sample = async (at: number): Promise<void> => {
      const { rows } = await client.query<Omit<Sample, 'at'>>(SAMPLE_SQL, [TABLES]);
      for (const row of rows) {
        const s = { at, ...row };
        if (!first.has(s.table)) first.set(s.table, s);
        samples.push(s);
        log(`${at}s ${s.table}: ${mb(s.total)} MB (indexes ${mb(s.indexes)}), live ${s.live}`);
      }
    };
    await sample(0);
    const tag = randomBytes(3).toString('hex');
    const started = Date.now();
    const end = started + MINUTES * 60_000;
    let published = 0;
    let deliveries = 0;
    let nextSample = started + SAMPLE_MS;
    while (Date.now() < end) {
      const due = Math.floor(((Date.now() - started) / 1000) * RATE) - published;
      if (due > 0) {
        const n = Math.min(due, RATE);
        const r = await client.query<{ n: number }>(PUBLISH_SQL, [tenantId, tag, published, n]);
        published += n;
        deliveries += r.rows[0]!.n;
      }
      if (Date.now() >= nextSample) {
        await sample(Math.round((nextSample - started) / 1000));
        nextSample += SAMPLE_MS;
      }
      await sleep(100);
    }
    const received = receivers.reduce((n, r) => n + r.requests, 0);
    log(`published ${published} events (${deliveries} deliveries), receivers got ${received}`);
    printTable(samples, first);
  } finally {
    await client.end().catch(() => undefined);
    await svc.stop();
    for (const r of receivers) await r.stop();
    await db.drop().catch((err: unknown) => log(`dropping the database: ${String(err)}`));
    if (!process.env.BENCH_KEEP) await rm(work, { recursive: true, force: true });
  }
}

await main();
