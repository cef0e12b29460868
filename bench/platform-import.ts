/**
 * Issue 36's import target, standalone (`node dist/bench/platform-import.js`, run by `npm run
 * bench` after the main harness): the platform API's NDJSON import of BENCH_IMPORT_DOCS (10,000)
 * documents of 2 KiB content each, on every adapter of BENCH_ADAPTERS.
 *
 * Targets: ≥ 2,000 documents/s, and memory flat: the peak live heap of a second import, of twice
 * as many documents (another tenant), is at most FLAT_GROWTH_MIB above the first's. The live heap
 * is read while the body is in flight: the service runs with `--inspect`, and when 1/4, 1/2, 3/4
 * and all of the documents have been handed to the request body (the upload waits meanwhile), the
 * bench forces a full collection over the inspector (`HeapProfiler.collectGarbage`) and reads the
 * heap's used size (`Runtime.getHeapUsage`); an import's peak is the largest of its four. A body
 * held whole, or anything that grows with the body, would keep at least the extra ~21 MiB of body
 * and its parsed values at the 2× import's last readings. The collections are forced because
 * what V8's own collections leave depends on when they fall: the live heap after the last
 * mark-compact by the end of an import (`--trace-gc`, the measure until 2026-11-28) moved between
 * runs with that timing (bench/README.md, "NDJSON import"). The ArrayBuffer backing stores
 * (Buffers: body chunks, lines) lie outside that heap and are shown beside it. RSS is shown too,
 * but it is not the measure: with the deployed `--heap-growing-percent=150`, V8 lets garbage reach
 * ~2.5 times the live heap before a major GC, so RSS peaks depend on when that GC falls, not on
 * what is kept.
 *
 * The readings pause the upload and the service (a full GC each): their time is measured and
 * taken out of the import's time for documents/s (the raw figure is shown beside it).
 *
 * The body is generated as it is sent (the client holds no more of it than the service does).
 * Each adapter imports into a tenant of its own, so every document is created (a first import,
 * the costlier case). Writes `bench/.tmp/RESULTS-platform-import.md`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

const MiB = 1048576;

/** One import's figures. */
interface Run {
  docs: number;
  bytes: number;
  /** Upload to answer, wall time, the readings included. */
  rawSeconds: number;
  /** The in-flight readings' time (each a forced full GC), while the upload waited. */
  readingSeconds: number;
  rssBefore: number;
  rssAtHalf: number;
  rssPeak: number;
  /** Used heap after a forced collection, just before the import (MiB). */
  heapBefore: number;
  buffersBefore: number;
  /** Used heap after a forced collection at 1/4, 1/2, 3/4 and all of the documents (MiB). */
  heap: number[];
  /** ArrayBuffer backing stores (outside the heap) at the same points (MiB). */
  buffers: number[];
}

interface Outcome {
  adapter: HttpAdapterName;
  once: Run;
  /** The import of twice as many documents, after the first. */
  twice: Run;
}

/** Documents per second, the readings' time taken out. */
const docsPerS = (r: Run): number => r.docs / (r.rawSeconds - r.readingSeconds);
const peak = (values: number[]): number => Math.max(...values);

/** The NDJSON body: one project, then `docs` documents of CONTENT_BYTES of content each. */
function* ndjson(docs: number): Generator<Buffer> {
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
    yield Buffer.from(`${JSON.stringify(line)}\n`);
  }
}

interface HeapReading {
  usedMiB: number;
  buffersMiB: number;
  ms: number;
}

/**
 * A DevTools protocol session with the service's main thread, on its `--inspect` port. A reading
 * forces a full collection, then reads what is left.
 */
async function inspector(
  port: number,
): Promise<{ heapAfterGc: () => Promise<HeapReading>; close: () => void }> {
  const res = await fetch(`http://127.0.0.1:${port}/json/list`);
  const targets = (await res.json()) as { type?: string; webSocketDebuggerUrl?: string }[];
  const url = targets.find((t) => t.type === 'node')?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}`);
  const ws = new WebSocket(url);
  await new Promise<void>((ok, ko) => {
    ws.onopen = () => ok();
    ws.onerror = () => ko(new Error(`inspector ${url}: connection failed`));
  });
  let last = 0;
  const pending = new Map<number, { ok: (result: unknown) => void; ko: (err: Error) => void }>();
  ws.onmessage = (ev: { data: unknown }) => {
    const msg = JSON.parse(String(ev.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    const waiter = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id!);
    if (msg.error) waiter.ko(new Error(`inspector: ${msg.error.message}`));
    else waiter.ok(msg.result);
  };
  ws.onclose = () => {
    for (const waiter of pending.values()) waiter.ko(new Error('inspector: connection closed'));
    pending.clear();
  };
  const send = <T>(method: string): Promise<T> =>
    new Promise<T>((ok, ko) => {
      const id = ++last;
      pending.set(id, { ok: ok as (result: unknown) => void, ko });
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    heapAfterGc: async () => {
      const started = performance.now();
      await send('HeapProfiler.collectGarbage');
      const usage = await send<{ usedSize: number; backingStorageSize?: number }>(
        'Runtime.getHeapUsage',
      );
      return {
        usedMiB: usage.usedSize / MiB,
        buffersMiB: (usage.backingStorageSize ?? NaN) / MiB,
        ms: performance.now() - started,
      };
    },
    close: () => ws.close(),
  };
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
  const inspectPort = await freePort();
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
      // the bench forces collections and reads the heap through it (the memory measure)
      `--inspect=127.0.0.1:${inspectPort}`,
      ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
    ],
  });
  const heap = await inspector(inspectPort).catch(async (err: unknown) => {
    await svc.stop();
    throw err;
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
    const post = async (tenantId: number, chunks: AsyncIterable<Buffer>) => {
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
    const measure = async (docs: number): Promise<Run> => {
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
      const before = await heap.heapAfterGc();
      let rssAtHalf = 0;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, readRssMb(svc.pid) ?? 0);
      }, 50);
      const marks = new Set([1, 2, 3, 4].map((q) => Math.floor((docs * q) / 4)));
      const heapAt: number[] = [];
      const buffersAt: number[] = [];
      let readingMs = 0;
      let bytes = 0;
      // async, so that the upload waits while a reading is taken: the service then holds what it
      // holds with that much of the body handed over (a bounded amount more is still in buffers)
      const chunks = async function* (): AsyncGenerator<Buffer> {
        let handed = -1; // the project line comes first
        for (const chunk of ndjson(docs)) {
          bytes += chunk.length;
          yield chunk;
          handed++;
          if (!marks.has(handed)) continue;
          if (handed === Math.floor(docs / 2)) rssAtHalf = readRssMb(svc.pid) ?? 0;
          const r = await heap.heapAfterGc();
          heapAt.push(r.usedMiB);
          buffersAt.push(r.buffersMiB);
          readingMs += r.ms;
        }
      };
      const started = performance.now();
      const { status, answer } = await post(target.tenant_id, chunks());
      const rawSeconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      rssPeak = Math.max(rssPeak, readRssMb(svc.pid) ?? 0);
      const created = (JSON.parse(answer) as { created?: { documents?: number } }).created;
      if (status !== 200 || created?.documents !== docs) {
        throw new Error(`import answered ${status}: ${answer.slice(0, 500)}`);
      }
      return {
        docs,
        bytes,
        rawSeconds,
        readingSeconds: readingMs / 1000,
        rssBefore,
        rssAtHalf,
        rssPeak,
        heapBefore: before.usedMiB,
        buffersBefore: before.buffersMiB,
        heap: heapAt,
        buffers: buffersAt,
      };
    };
    const once = await measure(DOCS);
    const twice = await measure(2 * DOCS);
    return { adapter, once, twice };
  } finally {
    heap.close();
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
        const { once, twice } = o;
        log(
          `${adapter}: ${docsPerS(once).toFixed(0)} documents/s (${once.rawSeconds.toFixed(2)} s, of which readings ${once.readingSeconds.toFixed(2)} s, taken out; ${(once.bytes / MiB).toFixed(1)} MiB), RSS ${once.rssBefore.toFixed(0)} → ${once.rssAtHalf.toFixed(0)} at 1/2 → peak ${once.rssPeak.toFixed(0)} MiB; ${twice.docs} documents: ${docsPerS(twice).toFixed(0)}/s, RSS peak ${twice.rssPeak.toFixed(0)} MiB; live heap after forced GC, before → peak: ${once.heapBefore.toFixed(1)} → ${peak(once.heap).toFixed(1)} MiB, ${twice.heapBefore.toFixed(1)} → ${peak(twice.heap).toFixed(1)} MiB at 2× (${(peak(twice.heap) - peak(once.heap)).toFixed(1)})`,
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
  const rows = outcomes.map(({ adapter, once, twice }) => {
    const growth = peak(twice.heap) - peak(once.heap);
    const fast = docsPerS(once) >= TARGET_DOCS_PER_S;
    const flat = growth <= FLAT_GROWTH_MIB;
    return `| ${adapter} | ${once.docs} | ${(once.bytes / MiB).toFixed(1)} | ${(once.rawSeconds - once.readingSeconds).toFixed(2)} | ${docsPerS(once).toFixed(0)} ${fast ? '✅' : '❌'} | ${once.rssBefore.toFixed(0)} | ${once.rssAtHalf.toFixed(0)} | ${once.rssPeak.toFixed(0)} | ${twice.rssPeak.toFixed(0)} | ${peak(once.heap).toFixed(1)} | ${peak(twice.heap).toFixed(1)} | ${growth.toFixed(1)} ${flat ? '✅' : '❌'} |`;
  });
  const readings = outcomes.flatMap(({ adapter, once, twice }) =>
    [once, twice].map(
      (r) =>
        `| ${adapter} | ${r.docs} | ${r.heapBefore.toFixed(1)} | ${r.heap.map((h) => h.toFixed(1)).join(' | ')} | ${peak(r.heap).toFixed(1)} | ${r.buffersBefore.toFixed(1)} → ${peak(r.buffers).toFixed(1)} | ${r.rawSeconds.toFixed(2)} | ${r.readingSeconds.toFixed(2)} | ${docsPerS(r).toFixed(0)} (raw ${(r.docs / r.rawSeconds).toFixed(0)}) |`,
    ),
  );
  const report = [
    '# NDJSON import (platform API)',
    '',
    `${new Date().toISOString()}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, database ${server ? 'external' : 'embedded'}.`,
    `Targets: ≥ ${TARGET_DOCS_PER_S} documents/s; the peak live heap of an import of twice as many documents is ≤ ${FLAT_GROWTH_MIB} MiB above the first import's.`,
    'Live heap: the used heap after a full collection forced over the inspector, read when 1/4, 1/2, 3/4 and all of the documents have been handed to the request body (the upload waits); the peak is the largest of the four. Forced, because what V8’s own collections leave depends on when they fall.',
    'Time (s, documents/s): upload to answer, the readings’ time (four forced GCs, during which the upload waits) taken out; the raw figures are in the second table.',
    'The machine is shared with other work: the load average above says how much; figures are indicative.',
    '',
    '| adapter | documents | body MiB | s | documents/s | RSS at start MiB | RSS at 1/2 | RSS peak | RSS peak, 2× documents | live heap peak, MiB | live heap peak 2×, MiB | 2× minus 1×, MiB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Each import’s readings (MiB; buffers: ArrayBuffer backing stores, outside the heap, before → peak):',
    '',
    '| adapter | documents | heap before | at 1/4 | at 1/2 | at 3/4 | all sent | peak | buffers | s, raw | readings s | documents/s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...readings,
    ...(problems.length ? ['', 'Problems:', ...problems.map((p) => `- ${p}`)] : []),
    '',
  ].join('\n');
  console.log(report);
  await mkdir(resolve(ROOT, 'bench/.tmp'), { recursive: true });
  await writeFile(resolve(ROOT, 'bench/.tmp/RESULTS-platform-import.md'), report);
  if (problems.length) process.exitCode = 1;
}

await main();
