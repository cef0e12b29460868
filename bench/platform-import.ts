/**
 * Issue 36's import target, standalone (`node dist/bench/platform-import.js`, run by `npm run
 * bench` after the main harness): the platform API's NDJSON import of BENCH_IMPORT_DOCS (10,000)
 * documents of 2 KiB content each, on every adapter of BENCH_ADAPTERS.
 *
 * Targets: ≥ 2,000 documents/s, and memory flat: after a second import, of twice as many
 * documents (another tenant), the live heap (what the last mark-compact kept, from the service's
 * `--trace-gc` lines) is at most FLAT_GROWTH_MIB above what it was after the first. A body held
 * whole, or anything that grows with the body, would keep at least the extra ~21 MiB of body and
 * its parsed values. RSS is shown too, but it is not the measure: with the deployed
 * `--heap-growing-percent=150`, V8 lets garbage reach ~2.5 times the live heap before a major GC,
 * so RSS peaks depend on when that GC falls, not on what is kept.
 *
 * The body is generated as it is sent (the client holds no more of it than the service does).
 * Each adapter imports into a tenant of its own, so every document is created (a first import,
 * the costlier case). Writes `bench/.tmp/RESULTS-platform-import.md`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import { HTTP_ADAPTERS, type HttpAdapterName } from '../src/common/http/platform/http-platform.js';
import { cli, freePort, readRssMb, ROOT, sleep, startProcess } from './harness.js';
import { startScriptFlags } from './service-flags.js';

const DOCS = Number(process.env.BENCH_IMPORT_DOCS ?? 10_000);
const CONTENT_BYTES = 2048;
const TARGET_DOCS_PER_S = 2000;
const FLAT_GROWTH_MIB = 16;

const log = (line: string): void => console.log(`[platform-import] ${line}`);

interface Outcome {
  adapter: HttpAdapterName;
  docs: number;
  bodyMiB: number;
  seconds: number;
  docsPerS: number;
  rssBeforeMiB: number;
  rssAtHalfMiB: number;
  rssPeakMiB: number;
  /** The import of twice as many documents, after the first. */
  twiceDocsPerS: number;
  twicePeakMiB: number;
  /** Live heap after the last mark-compact by the end of each import (MB, `--trace-gc`). */
  liveMiB: number;
  twiceLiveMiB: number;
}

/** The NDJSON body: one project, then `docs` documents of CONTENT_BYTES of content each. */
function* ndjson(docs: number, onProgress: (sent: number) => void = () => {}): Generator<Buffer> {
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(CONTENT_BYTES / 27));
  yield Buffer.from(`{"kind":"project","external_id":"bench-import","name":"Import bench"}\n`);
  for (let i = 0; i < docs; i++) {
    const content = { title: `Policy ${i}`, body: filler.slice(0, CONTENT_BYTES - 40), n: i };
    const line = {
      kind: 'document',
      project_external_id: 'bench-import',
      external_id: `doc-${i}`,
      title: `Policy ${i}`,
      content,
    };
    onProgress(i);
    yield Buffer.from(`${JSON.stringify(line)}\n`);
  }
  onProgress(docs);
}

async function createDatabase(server: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `grc_bench_import_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(server);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      if (process.env.BENCH_KEEP) return;
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function importOnce(
  adapter: HttpAdapterName,
  env: Record<string, string>,
  work: string,
): Promise<Outcome> {
  const port = await freePort();
  const platformPort = await freePort();
  const svc = await startProcess({
    script: resolve(ROOT, 'dist/src/main.js'),
    env: {
      ...env,
      HTTP_ADAPTER: adapter,
      PLATFORM_API_PORT: String(platformPort),
      SEED_DEMO: 'false',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    },
    port,
    logFile: join(work, `service-${adapter}.log`),
    readyPath: '/health/ready',
    nodeArgs: [
      ...startScriptFlags(ROOT),
      // one line per GC in the log: the live heap after each mark-compact is the memory measure
      '--trace-gc',
      ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
    ],
  });
  try {
    const key = await cli<{ key: string }>(env, [
      'platform-key',
      'create',
      '--name',
      `bench-${adapter}`,
      '--scopes',
      'platform:content',
    ]);
    const post = async (tenantId: number, chunks: Iterable<Buffer>) => {
      const res = await fetch(
        `http://127.0.0.1:${platformPort}/platform/v1/tenants/${tenantId}/import`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key.key}`,
            'x-acting-user': 'bench',
            'content-type': 'application/x-ndjson',
          },
          body: Readable.toWeb(Readable.from(chunks)) as ReadableStream,
          duplex: 'half',
        },
      );
      return { status: res.status, answer: await res.text() };
    };
    /** What the last mark-compact so far left live, in MB (V8's `--trace-gc` figures). */
    const liveAfterMarkCompact = (): number => {
      const text = readFileSync(join(work, `service-${adapter}.log`), 'utf8');
      const all = [...text.matchAll(/Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/g)];
      return all.length ? Number(all.at(-1)![1]) : NaN;
    };
    const measure = async (docs: number) => {
      const target = await cli<{ tenant_id: number }>(env, [
        'tenant',
        'create',
        '--name',
        `Import ${adapter} ${docs}`,
        '--plan',
        'enterprise',
      ]);
      await sleep(300);
      const rssBefore = readRssMb(svc.pid) ?? 0;
      let rssAtHalf = 0;
      let peak = rssBefore;
      const sampler = setInterval(() => {
        peak = Math.max(peak, readRssMb(svc.pid) ?? 0);
      }, 50);
      let bytes = 0;
      const chunks = (function* () {
        for (const chunk of ndjson(docs, (sent) => {
          if (sent === Math.floor(docs / 2)) rssAtHalf = readRssMb(svc.pid) ?? 0;
        })) {
          bytes += chunk.length;
          yield chunk;
        }
      })();
      const started = performance.now();
      const { status, answer } = await post(target.tenant_id, chunks);
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, readRssMb(svc.pid) ?? 0);
      const created = (JSON.parse(answer) as { created?: { documents?: number } }).created;
      if (status !== 200 || created?.documents !== docs) {
        throw new Error(`import answered ${status}: ${answer.slice(0, 500)}`);
      }
      // the log lines of the import's last collections are written
      await sleep(1000);
      return {
        docs,
        bytes,
        seconds,
        rssBefore,
        rssAtHalf,
        peak,
        live: liveAfterMarkCompact(),
      };
    };
    const first = await measure(DOCS);
    const twice = await measure(2 * DOCS);
    return {
      adapter,
      docs: DOCS,
      bodyMiB: first.bytes / 1048576,
      seconds: first.seconds,
      docsPerS: DOCS / first.seconds,
      rssBeforeMiB: first.rssBefore,
      rssAtHalfMiB: first.rssAtHalf,
      rssPeakMiB: first.peak,
      twiceDocsPerS: twice.docs / twice.seconds,
      twicePeakMiB: twice.peak,
      liveMiB: first.live,
      twiceLiveMiB: twice.live,
    };
  } finally {
    await svc.stop();
  }
}

/** Runs unless BENCH_ONLY names other scenarios only (`import` selects this one). */
function wanted(): boolean {
  const only = process.env.BENCH_ONLY;
  return !only || only.split(',').some((id) => id.trim() === 'import');
}

async function main(): Promise<void> {
  if (!wanted()) {
    log('not run (BENCH_ONLY)');
    return;
  }
  const adapters = (process.env.BENCH_ADAPTERS ?? HTTP_ADAPTERS.join(','))
    .split(',')
    .map((a) => a.trim())
    .filter((a): a is HttpAdapterName => (HTTP_ADAPTERS as readonly string[]).includes(a));
  const work = await mkdtemp(join(tmpdir(), 'grc-bench-import-'));
  // run as root, the embedded PostgreSQL runs as the postgres user, which must reach DATA_DIR
  await chmod(work, 0o755);
  const server = process.env.DATABASE_URL;
  let drop = async (): Promise<void> => {};
  let env: Record<string, string>;
  if (server) {
    const db = await createDatabase(server);
    drop = db.drop;
    env = { DATABASE_URL: db.url, WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };
    execFileSync(process.execPath, [resolve(ROOT, 'dist/src/migrate-cli.js')], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } else {
    const dataDir = join(work, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    env = { DATA_DIR: dataDir };
  }
  const outcomes: Outcome[] = [];
  const problems: string[] = [];
  try {
    for (const adapter of adapters) {
      log(`${adapter}: importing ${DOCS} documents of ${CONTENT_BYTES} B content`);
      try {
        const o = await importOnce(adapter, env, work);
        outcomes.push(o);
        log(
          `${adapter}: ${o.docsPerS.toFixed(0)} documents/s (${o.seconds.toFixed(2)} s, ${o.bodyMiB.toFixed(1)} MiB), RSS ${o.rssBeforeMiB.toFixed(0)} → ${o.rssAtHalfMiB.toFixed(0)} at 1/2 → peak ${o.rssPeakMiB.toFixed(0)} MiB; ${2 * o.docs} documents: ${o.twiceDocsPerS.toFixed(0)}/s, peak ${o.twicePeakMiB.toFixed(0)} MiB; live heap after mark-compact: ${o.liveMiB} / ${o.twiceLiveMiB} MB`,
        );
      } catch (err) {
        problems.push(`${adapter}: ${err instanceof Error ? err.message : String(err)}`);
        log(`${adapter}: FAILED ${String(err)}`);
      }
    }
  } finally {
    await drop();
    if (!process.env.BENCH_KEEP) await rm(work, { recursive: true, force: true });
  }
  const rows = outcomes.map((o) => {
    const growth = o.twiceLiveMiB - o.liveMiB;
    const fast = o.docsPerS >= TARGET_DOCS_PER_S;
    const flat = growth <= FLAT_GROWTH_MIB;
    return `| ${o.adapter} | ${o.docs} | ${o.bodyMiB.toFixed(1)} | ${o.seconds.toFixed(2)} | ${o.docsPerS.toFixed(0)} ${fast ? '✅' : '❌'} | ${o.rssBeforeMiB.toFixed(0)} | ${o.rssAtHalfMiB.toFixed(0)} | ${o.rssPeakMiB.toFixed(0)} | ${o.twicePeakMiB.toFixed(0)} | ${o.liveMiB} | ${o.twiceLiveMiB} | ${growth.toFixed(1)} ${flat ? '✅' : '❌'} |`;
  });
  const report = [
    '# NDJSON import (platform API)',
    '',
    `${new Date().toISOString()}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, database ${server ? 'external' : 'embedded'}.`,
    `Targets: ≥ ${TARGET_DOCS_PER_S} documents/s; after an import of twice as many documents the live heap (after mark-compact) is ≤ ${FLAT_GROWTH_MIB} MB above what it was after the first.`,
    'The machine is shared with other work: the load average above says how much; figures are indicative.',
    '',
    '| adapter | documents | body MiB | s | documents/s | RSS at start MiB | RSS at 1/2 | RSS peak | RSS peak, 2× documents | live heap after, MB | live heap after 2×, MB | 2× minus 1×, MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    ...(problems.length ? ['', 'Problems:', ...problems.map((p) => `- ${p}`)] : []),
    '',
  ].join('\n');
  console.log(report);
  await mkdir(resolve(ROOT, 'bench/.tmp'), { recursive: true });
  await writeFile(resolve(ROOT, 'bench/.tmp/RESULTS-platform-import.md'), report);
  if (problems.length) process.exitCode = 1;
}

await main();
