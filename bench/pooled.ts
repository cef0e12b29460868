/**
 * Issue 23's rows, beside `npm run bench`'s table (run on their own: `npm run bench:pooled`):
 *
 * - **1 direct / 1 PgBouncer**: scenario 1 (`GET /documents/{id}` with a bearer token) on the
 *   service connected to PostgreSQL itself (`DATABASE_POOL_MODE=session`, statements prepared),
 *   then on the service behind a real PgBouncer in transaction mode (pool of 10 server
 *   connections for the service's 20; nothing prepared; LISTEN on PostgreSQL).
 * - **soak**: through PgBouncer, token requests and stagings (each one event and one webhook
 *   delivery to a local receiver) go on continuously for BENCH_SOAK seconds with retention on a
 *   short window (events kept RETENTION_EVENT_SECONDS=20, swept every second); the row counts of
 *   the growing tables are sampled, and the read path's p99 is measured at the start and at the
 *   end, under that same background load.
 *
 * Needs DATABASE_URL (a PostgreSQL server: a fresh database is created there and dropped) and
 * Debian's pgbouncer. Env: BENCH_DURATION (10 s per scenario-1 row), BENCH_WARMUP (3 s),
 * BENCH_SOAK (60 s).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import pg from 'pg';
import { startPgBouncer } from '../test/support/pgbouncer.js';
import {
  cli,
  freePort,
  http,
  load,
  type LoadResult,
  ROOT,
  runJson,
  sleep,
  startProcess,
} from './harness.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const SOAK = Number(process.env.BENCH_SOAK ?? 60);
const MAIN = resolve(ROOT, 'dist/src/main.js');
const TABLES = ['access_tokens', 'events', 'webhook_deliveries', 'webhook_delivery_attempts'];

const log = (line: string) => process.stdout.write(`${line}\n`);

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function counts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, number> = {};
    for (const t of TABLES) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`);
      out[t] = Number(rows[0]?.n ?? 0);
    }
    return out;
  } finally {
    await client.end();
  }
}

const row = (name: string, r: LoadResult) =>
  `| ${name} | ${r.requestsPerSec.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} |`;

async function main(): Promise<void> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('DATABASE_URL (a PostgreSQL server) is required');
  const name = `grc_bench_pool_${randomBytes(4).toString('hex')}`;
  const direct = withDatabase(server, name);
  await admin(server, `CREATE DATABASE ${name}`);
  const bouncer = await startPgBouncer({
    serverUrl: server,
    mode: 'transaction',
    poolSize: 10,
    databases: [name],
  });
  const pooled = withDatabase(bouncer.url, name);
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const base = {
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    SEED_DEMO: 'false',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_API_PER_MINUTE: '1000000000',
    RATE_LIMIT_TOKEN_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
  };
  const sessionEnv = { ...base, DATABASE_URL: direct, DATABASE_POOL_MODE: 'session' };
  const transactionEnv = {
    ...base,
    DATABASE_URL: pooled,
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_POOL_SIZE: '20',
    DATABASE_LISTEN_URL: direct,
  };
  const logFile = resolve(ROOT, 'bench/.tmp/pooled-service.log');
  const start = async (env: Record<string, string>) =>
    startProcess({
      script: MAIN,
      env,
      port: await freePort(),
      logFile,
      readyPath: '/health/ready',
    });
  try {
    await runJson(resolve(ROOT, 'dist/src/migrate-cli.js'), [], sessionEnv);
    const tenant = await cli<{ tenant_id: number }>(sessionEnv, [
      'tenant',
      'create',
      '--name',
      'Bench',
      '--plan',
      'enterprise',
    ]);
    const client = await cli<{ client_id: string; client_secret: string }>(sessionEnv, [
      'client',
      'create',
      '--tenant',
      String(tenant.tenant_id),
      '--name',
      'bench',
      '--scopes',
      'projects:read documents:read revisions:write webhooks:read webhooks:write',
    ]);
    const project = await cli<{ projectId: number }>(sessionEnv, [
      'project',
      'create',
      '--tenant',
      String(tenant.tenant_id),
      '--name',
      'Bench',
    ]);
    const contentFile = resolve(ROOT, 'bench/.tmp/pooled-content.json');
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(resolve(ROOT, 'bench/.tmp'), { recursive: true });
    writeFileSync(
      contentFile,
      JSON.stringify({
        blocks: Array.from({ length: 40 }, (_, i) => ({ i, text: 'x'.repeat(80) })),
      }),
    );
    const doc = await cli<{ documentId: number }>(sessionEnv, [
      'document',
      'create',
      '--project',
      String(project.projectId),
      '--title',
      'Bench',
      '--content-file',
      contentFile,
    ]);
    const tokenBody = {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
      ttl: 86400,
    };

    const rows: string[] = [];
    for (const [label, env] of [
      ['1 direct (session, prepared)', sessionEnv],
      ['1 PgBouncer transaction (pool 10, unprepared)', transactionEnv],
    ] as const) {
      const svc = await start(env);
      try {
        const token = (await http(svc.baseUrl, 'POST', '/api/v1/oauth/token', { body: tokenBody }))
          .body as { access_token: string };
        const opts = {
          url: `${svc.baseUrl}/api/v1/documents/${doc.documentId}`,
          headers: { authorization: `Bearer ${token.access_token}` },
        };
        if (WARMUP > 0) await load({ ...opts, durationSec: WARMUP });
        const r = await load({ ...opts, durationSec: DURATION });
        rows.push(row(label, r));
        log(rows.at(-1)!);
      } finally {
        await svc.stop();
      }
    }

    // soak, through PgBouncer, retention on a short window
    const svc = await start({
      ...transactionEnv,
      RETENTION_EVENT_SECONDS: '20',
      RETENTION_TOKEN_GRACE_SECONDS: '0',
      RETENTION_INTERVAL_MS: '1000',
    });
    const soak: string[] = [];
    try {
      const token = (
        (await http(svc.baseUrl, 'POST', '/api/v1/oauth/token', { body: tokenBody })).body as {
          access_token: string;
        }
      ).access_token;
      const hook = await http(svc.baseUrl, 'POST', '/api/v1/webhooks', {
        token,
        body: { name: 'soak', endpoint_url: receiverUrl, events: ['*'] },
      });
      if (hook.status !== 201) throw new Error(`webhook: ${hook.status}`);
      let stop = false;
      let failures = 0;
      let issued = 0;
      let staged = 0;
      const background = async (kind: 'token' | 'stage') => {
        while (!stop) {
          const res =
            kind === 'token'
              ? await http(svc.baseUrl, 'POST', '/api/v1/oauth/token', {
                  body: { ...tokenBody, ttl: 300 },
                })
              : await http(
                  svc.baseUrl,
                  'POST',
                  `/api/v1/documents/${doc.documentId}/external-revisions`,
                  {
                    token,
                    body: { content: { soak: staged } },
                  },
                );
          if (res.status >= 300) failures += 1;
          else if (kind === 'token') issued += 1;
          else staged += 1;
        }
      };
      const workers = [
        ...Array.from({ length: 4 }, () => background('token')),
        ...Array.from({ length: 4 }, () => background('stage')),
      ];
      const read = {
        url: `${svc.baseUrl}/api/v1/documents/${doc.documentId}`,
        headers: { authorization: `Bearer ${token}` },
        durationSec: 5,
      };
      const first = await load(read);
      const samples: Array<Record<string, number>> = [];
      const began = Date.now();
      while (Date.now() - began < SOAK * 1000) {
        await sleep(5_000);
        samples.push(await counts(direct));
      }
      const last = await load(read);
      stop = true;
      await Promise.all(workers);
      const end = await counts(direct);
      const max = Object.fromEntries(
        TABLES.map((t) => [t, Math.max(...samples.map((s) => s[t] ?? 0))]),
      );
      const secs = (Date.now() - began) / 1000 + 10;
      soak.push(
        `soak ${SOAK} s through PgBouncer: ${issued} tokens (${(issued / secs).toFixed(0)}/s, ttl 300 s), ` +
          `${staged} stagings (${(staged / secs).toFixed(0)}/s, one delivery each), ${failures} failed requests`,
        `read p99 start ${first.p99} ms (${first.requestsPerSec.toFixed(0)} req/s, ${first.errors} errors), ` +
          `end ${last.p99} ms (${last.requestsPerSec.toFixed(0)} req/s, ${last.errors} errors): ` +
          `end/start ${(last.p99 / Math.max(first.p99, 1)).toFixed(2)}`,
        `row counts, max while soaking: ${JSON.stringify(max)}; at the end: ${JSON.stringify(end)}`,
      );
      for (const line of soak) log(line);
    } finally {
      await svc.stop();
    }
    log('\n| row | req/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|');
    for (const r of rows) log(r);
    for (const line of soak) log(`- ${line}`);
  } finally {
    receiver.close();
    await bouncer.stop();
    await admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  }
}

await main();
