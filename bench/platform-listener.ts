import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cli,
  CONNECTIONS,
  contentOf,
  freePort,
  http,
  load,
  type LoadResult,
  type ManagedProcess,
  ROOT,
  startProcess,
  BENCH_ADAPTERS,
} from './harness.js';
import { startScriptFlags } from './service-flags.js';

/**
 * Issue 36's last target: the integration API's scenario 1 (an authenticated document read) is
 * unchanged with the platform listener on. A/B in one run, per adapter: the service started with
 * `PLATFORM_API_PORT=off` (A) and with the listener on a free port (B), in alternating rounds
 * (ABAB…, a fresh start each), each round BENCH_DURATION seconds of scenario 1's request at
 * CONNECTIONS connections after BENCH_WARMUP seconds unmeasured. B ÷ A of the summed req/s, and
 * each side's worst p99.
 *
 * `npm run bench:listener` (after the build), or at the end of `npm run bench` (BENCH_ONLY=pl).
 * DATABASE_URL is not used: the service's embedded PostgreSQL in a temp DATA_DIR, as `npm start`.
 */
const ROUNDS = Number(process.env.BENCH_LISTENER_ROUNDS ?? 4);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ADAPTERS = BENCH_ADAPTERS;
const ONLY = process.env.BENCH_ONLY?.split(',').map((id) => id.trim());

const log = (line: string): void => {
  process.stderr.write(`[platform-listener] ${line}\n`);
};

interface Seeded {
  token: string;
  documentId: number;
}

/** A tenant, a reader's token and one document, made as an operator makes them (the CLI). */
async function seed(env: Record<string, string>, svc: ManagedProcess): Promise<Seeded> {
  const t = await cli<{ tenant_id: number }>(env, [
    ...['tenant', 'create', '--name', 'Listener bench', '--plan', 'enterprise'],
  ]);
  const c = await cli<{ client_id: string; client_secret: string }>(env, [
    ...['client', 'create', '--tenant', String(t.tenant_id), '--name', 'reader'],
    ...['--scopes', 'documents:read'],
  ]);
  const p = await cli<{ projectId: number }>(env, [
    ...['project', 'create', '--tenant', String(t.tenant_id), '--name', 'Read'],
  ]);
  const file = join(env['DATA_DIR']!, '..', 'content.json');
  await writeFile(file, JSON.stringify(contentOf(1)));
  const d = await cli<{ documentId: number }>(env, [
    ...['document', 'create', '--project', String(p.projectId), '--title', 'Policy'],
    ...['--content-file', file],
  ]);
  const token = await http(svc.baseUrl, 'POST', '/api/v1/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: c.client_id,
      client_secret: c.client_secret,
      ttl: 86400,
    },
  });
  if (token.status !== 200) throw new Error(`token: ${token.status}`);
  return {
    token: (token.body as { access_token: string }).access_token,
    documentId: d.documentId,
  };
}

interface Side {
  runs: LoadResult[];
}

function summary(side: Side): { rps: number; p99: number; errors: number } {
  const seconds = side.runs.reduce((s, r) => s + (r.elapsedSec ?? DURATION), 0);
  const requests = side.runs.reduce((s, r) => s + r.total, 0);
  return {
    rps: requests / Math.max(seconds, 0.001),
    p99: Math.max(...side.runs.map((r) => r.p99)),
    errors: side.runs.reduce((s, r) => s + r.errors, 0),
  };
}

async function main(): Promise<void> {
  if (ONLY && !ONLY.includes('pl')) return;
  const work = await mkdtemp(join(tmpdir(), 'grc-bench-listener-'));
  await chmod(work, 0o755);
  const dataDir = join(work, 'data');
  await mkdir(dataDir, { mode: 0o755 });
  await chmod(dataDir, 0o755);
  const env = { DATA_DIR: dataDir };
  const nodeArgs = startScriptFlags(ROOT);
  const rows: string[] = [];
  log(`${ROUNDS} rounds × ${DURATION} s per side at ${CONNECTIONS} connections`);
  try {
    let seeded: Seeded | undefined;
    for (const adapter of ADAPTERS) {
      const sides: Record<'off' | 'on', Side> = { off: { runs: [] }, on: { runs: [] } };
      for (let round = 0; round < ROUNDS * 2; round++) {
        const listener = round % 2 === 0 ? 'off' : 'on';
        const svc = await startProcess({
          script: 'dist/src/main.js',
          env: {
            ...env,
            SEED_DEMO: 'false',
            LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
            HTTP_ADAPTER: adapter,
            PLATFORM_API_PORT: listener === 'off' ? 'off' : String(await freePort()),
            RATE_LIMIT_API_PER_MINUTE: '1000000000',
          },
          port: await freePort(),
          logFile: join(work, `service-${adapter}.log`),
          readyPath: '/health/ready',
          nodeArgs,
        });
        try {
          seeded ??= await seed(env, svc);
          const request = {
            url: `${svc.baseUrl}/api/v1/documents/${seeded.documentId}`,
            headers: { authorization: `Bearer ${seeded.token}` },
          };
          if (WARMUP > 0) await load({ ...request, durationSec: WARMUP });
          sides[listener].runs.push(await load({ ...request, durationSec: DURATION }));
        } finally {
          await svc.stop();
        }
      }
      const off = summary(sides.off);
      const on = summary(sides.on);
      rows.push(
        `| ${adapter} | ${off.rps.toFixed(0)} | ${off.p99} | ${on.rps.toFixed(0)} | ${on.p99} | ${(on.rps / off.rps).toFixed(3)} | ${off.errors + on.errors} |`,
      );
    }
  } finally {
    if (!process.env.BENCH_KEEP) await rm(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
  process.stdout.write(
    [
      `Scenario 1 with the platform listener off (A) and on (B); load average at the end ${loadavg()[0]!.toFixed(2)}`,
      '',
      '| adapter | A req/s | A p99 ms | B req/s | B p99 ms | B ÷ A | errors |',
      '|---|---|---|---|---|---|---|',
      ...rows,
    ]
      .map((l) => `${l}\n`)
      .join(''),
  );
}

await main();
