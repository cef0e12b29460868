import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BENCH_ADAPTERS,
  cli,
  CONNECTIONS,
  contentOf,
  freePort,
  http,
  load,
  type LoadResult,
  startProcess,
  ROOT,
} from './harness.js';
import { CpuMeter } from './cpu-meter.js';
import { startScriptFlags } from './service-flags.js';

/**
 * Issue 40's cost of tracing on scenario 1 (an authenticated document read). A/B in one run, per
 * adapter, in alternating rounds (a fresh start each): `before`, another build's entry point
 * (BENCH_BEFORE_MAIN, e.g. the commit before tracing, built elsewhere; left out when unset);
 * `off`, this build without OTEL_* variables; `on`, this build exporting every span (OTLP/HTTP
 * JSON, always-on sampling) to a sink in this process that only counts them. Each round
 * BENCH_DURATION seconds at CONNECTIONS connections after BENCH_WARMUP seconds unmeasured.
 * Besides req/s, the service process's CPU milliseconds per request over the measured seconds:
 * on this shared host req/s swings by a quarter between rounds of one build, CPU per request far
 * less (a process is not charged while it waits for a CPU), so the ratios are given for both.
 *
 * `npm run build && tsc -p bench/tsconfig.json && node dist/bench/tracing.js`.
 * DATABASE_URL is not used: the service's embedded PostgreSQL in a temp DATA_DIR, as `npm start`.
 */
const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const BEFORE = process.env.BENCH_BEFORE_MAIN;
const SIDES = process.env.BENCH_TRACING_SIDES?.split(',');

type SideName = 'before' | 'off' | 'on';

const log = (line: string): void => {
  process.stderr.write(`[tracing] ${line}\n`);
};

/** Accepts OTLP exports and counts their bytes: the collector's cost is not the service's. */
async function startSink(): Promise<{ endpoint: string; bytes: () => number; server: Server }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, bytes: () => bytes, server };
}

async function seed(
  env: Record<string, string>,
  baseUrl: string,
): Promise<{ token: string; documentId: number }> {
  const t = await cli<{ tenant_id: number }>(env, [
    ...['tenant', 'create', '--name', 'Tracing bench', '--plan', 'enterprise'],
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
  const token = await http(baseUrl, 'POST', '/api/v1/oauth/token', {
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

function summary(runs: LoadResult[]): { rps: number; p99: number; errors: number } {
  const seconds = runs.reduce((s, r) => s + (r.elapsedSec ?? DURATION), 0);
  const requests = runs.reduce((s, r) => s + r.total, 0);
  return {
    rps: requests / Math.max(seconds, 0.001),
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'grc-bench-tracing-'));
  await chmod(work, 0o755);
  const dataDir = join(work, 'data');
  await mkdir(dataDir, { mode: 0o755 });
  await chmod(dataDir, 0o755);
  const env = { DATA_DIR: dataDir };
  const nodeArgs = startScriptFlags(ROOT);
  const sink = await startSink();
  // BENCH_TRACING_SIDES=before,off: an A/B of two builds alone, without the tracing side
  const order = (BEFORE ? ['before', 'off', 'on'] : ['off', 'on']).filter(
    (side) => !SIDES || SIDES.includes(side),
  ) as SideName[];
  const rows: string[] = [];
  log(
    `${ROUNDS} rounds × ${DURATION} s per side (${order.join(', ')}) at ${CONNECTIONS} connections`,
  );
  try {
    let seeded: { token: string; documentId: number } | undefined;
    for (const adapter of BENCH_ADAPTERS) {
      const runs: Record<SideName, LoadResult[]> = { before: [], off: [], on: [] };
      const cpu: Record<SideName, { ticksMs: number; requests: number }> = {
        before: { ticksMs: 0, requests: 0 },
        off: { ticksMs: 0, requests: 0 },
        on: { ticksMs: 0, requests: 0 },
      };
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of order) {
          const otel: Record<string, string> =
            side === 'on'
              ? {
                  OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
                  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
                }
              : {};
          const svc = await startProcess({
            script: side === 'before' ? BEFORE! : 'dist/src/main.js',
            env: {
              ...env,
              SEED_DEMO: 'false',
              LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
              HTTP_ADAPTER: adapter,
              RATE_LIMIT_API_PER_MINUTE: '1000000000',
              ...otel,
            },
            port: await freePort(),
            logFile: join(work, `service-${adapter}-${side}.log`),
            readyPath: '/health/ready',
            nodeArgs,
          });
          try {
            seeded ??= await seed(env, svc.baseUrl);
            const request = {
              url: `${svc.baseUrl}/api/v1/documents/${seeded.documentId}`,
              headers: { authorization: `Bearer ${seeded.token}` },
            };
            if (WARMUP > 0) await load({ ...request, durationSec: WARMUP });
            const meter = new CpuMeter(svc.pid).begin();
            const run = await load({ ...request, durationSec: DURATION });
            const cost = meter.end().cost(run.total);
            runs[side].push(run);
            if (cost) {
              cpu[side].ticksMs += cost.processMs * run.total;
              cpu[side].requests += run.total;
            }
            log(
              `${adapter} round ${round + 1} ${side}: ${(run.total / (run.elapsedSec ?? DURATION)).toFixed(0)} req/s, p99 ${run.p99} ms, CPU ${cost ? cost.processMs.toFixed(3) : '–'} ms/request, steal ${cost ? cost.stealPct.toFixed(1) : '–'} %, load ${loadavg()[0]!.toFixed(1)}`,
            );
          } finally {
            await svc.stop();
          }
        }
      }
      const s = Object.fromEntries(order.map((side) => [side, summary(runs[side])])) as Record<
        SideName,
        ReturnType<typeof summary>
      >;
      const cpuMs = (side: SideName): number | undefined =>
        cpu[side].requests > 0 ? cpu[side].ticksMs / cpu[side].requests : undefined;
      const cell = (side: SideName): string =>
        s[side]
          ? `${s[side].rps.toFixed(0)} | ${s[side].p99} | ${cpuMs(side)?.toFixed(3) ?? '–'}`
          : '– | – | –';
      const cpuRatio = (a: SideName, b: SideName): string => {
        const [x, y] = [cpuMs(a), cpuMs(b)];
        return x !== undefined && y !== undefined ? (x / y).toFixed(3) : '–';
      };
      const ratio = (a: SideName, b: SideName): string =>
        s[a] && s[b] ? (s[a].rps / s[b].rps).toFixed(3) : '–';
      const errors = order.reduce((n, side) => n + s[side].errors, 0);
      rows.push(
        `| ${adapter} | ${cell('before')} | ${cell('off')} | ${cell('on')} | ${ratio('off', 'before')} | ${cpuRatio('off', 'before')} | ${ratio('on', 'off')} | ${cpuRatio('on', 'off')} | ${errors} |`,
      );
    }
  } finally {
    sink.server.close();
    if (!process.env.BENCH_KEEP) await rm(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
  process.stdout.write(
    [
      `Scenario 1: before (${BEFORE ?? 'not given'}), tracing off, tracing on (every span exported, ${(sink.bytes() / 1e6).toFixed(1)} MB of OTLP JSON); load average at the end ${loadavg()[0]!.toFixed(2)}`,
      '',
      '| adapter | before req/s | before p99 ms | before CPU ms/req | off req/s | off p99 ms | off CPU ms/req | on req/s | on p99 ms | on CPU ms/req | off ÷ before req/s | off ÷ before CPU | on ÷ off req/s | on ÷ off CPU | errors |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ]
      .map((l) => `${l}\n`)
      .join(''),
  );
}

await main();
