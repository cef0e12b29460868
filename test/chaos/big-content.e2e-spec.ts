import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { startScriptFlags } from '../../bench/service-flags.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createCaller, type TestCaller } from '../support/factories.js';
import { createDocument, createProject } from '../support/read-factories.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { newSecretKey, printFigures, serviceEnv, sleep } from './support.js';

/**
 * Issue 34 item 1: no body under BODY_LIMIT, whatever its shape, ends the process or stalls other
 * requests. One service as deployed (its own process, `npm start`'s heap flags); another tenant's
 * `GET /projects` is probed every 10 ms, first alone (its baseline), then while four stagings of
 * one shape repeat. The figures are printed (`CHAOS big-content-…`) for docs/operators/security.md
 * and bench/README.md, where they stand beside the target (p99 within 100 ms of the baseline).
 * Asserted, with the margins this shared 2-core machine needs (other test runs share its CPU, and
 * PostgreSQL parsing four 5 MB `jsonb` values competes with the probe's query for it): the process
 * lives and every request is answered; its peak RSS stays under PEAK_RSS_MIB (see there); the
 * probe's p99 stays within STALL_MS of its baseline, which catches the old behaviour (3.5-3.8 s
 * with 260,000 keys, and a dead process with 1.7 million `{}`).
 */
const BODY_LIMIT = 5 * 1024 * 1024;
/**
 * The process's peak RSS (VmHWM, the whole run) is held under this; the target is `npm start`'s
 * 256 MB old-space limit. RSS also holds code (~59 MB of the binary), the main thread's heap, the
 * JSON worker's heap while big bodies come, and the flood's buffers: 475-491 MB before the cuts
 * of bench/README.md "Memory under big bodies", 333-356 MB after them, 290-315 MB after those of
 * "Memory at rest and under big bodies" (the idle worker exits, glibc's malloc settings, the
 * start-up's and each body's garbage given back; six runs of this test at load average 15-30),
 * with 140-157 MB at rest; 266-303 MB at f038702 (four runs, load average 2-8), and 255-277 MB
 * once a tenant’s big bodies are read two at a time beside the one in the slot (five runs, same
 * host and hours; "Issue 34: … session 24"). The bound is the last figures' with a margin; the
 * target (256) is not met in every run yet.
 */
const PEAK_RSS_MIB = 300;
const MAX_NODES = 100_000;
/** Stagings in flight at once, and how many each of them sends in turn. */
const CONCURRENCY = 4;
const ROUNDS = 3;
/**
 * What the probe's p99 may grow by under the flood here. The target, 100 ms, is measured: met on
 * a quieter host (worst shape +58 ms on Express, +74 on Fastify, load average ~8); with the load
 * average at 12-19 the worst shape's p99 grew by +117 to +279 ms (1.7 million `{}` on Fastify,
 * 74 probes), so the bound is 400 (was 500).
 */
const STALL_MS = 400;

/** A 5 MiB body of `n` values from `each(i)`, its text joined without one big array of parts. */
function listBody(n: number, each: (i: number) => string): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(each(i));
  return `{"content":{"a":[${parts.join(',')}]}}`;
}

function wideBody(keys: number, keyWidth: number, value: string): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"${String(i).padStart(keyWidth, 'k')}":${value}`);
  return `{"content":{${parts.join(',')}}}`;
}

/** `levels` levels of arrays in content, `width` numbers at the bottom. */
function deepBody(levels: number, width: number): string {
  const bottom = Array.from({ length: width }, (_, i) => i * 7).join(',');
  return `{"content":{"a":${'['.repeat(levels - 1)}${bottom}${']'.repeat(levels - 1)}}}`;
}

/** The shapes of the issue and around the limits; the attacks first (the old code died of #2). */
const SHAPES: Array<{ name: string; body: () => string; status: number }> = [
  // the second attack: 260,000 keys in 4 MB
  { name: 'wide-260k-keys', body: () => wideBody(260_000, 8, '"vvvv"'), status: 400 },
  // the first attack: 1.7 million {} in 5.1 MB
  { name: 'tiny-array-1.7M', body: () => listBody(1_700_000, () => '{}'), status: 400 },
  // accepted, at the limit: the most work a body may ask for
  {
    name: 'wide-100k-long-keys',
    body: () => wideBody(MAX_NODES - 1, 44, '1'),
    status: 201,
  },
  {
    name: 'array-100k-numbers',
    body: () => listBody(MAX_NODES - 2, (i) => `${123456789012 + i}.${i % 997}e-3`),
    status: 201,
  },
  {
    name: 'array-100k-strings',
    body: () => listBody(MAX_NODES - 2, (i) => `"${String(i).padEnd(46, 's')}"`),
    status: 201,
  },
  {
    name: 'one-long-string',
    body: () => `{"content":{"a":"${'x'.repeat(BODY_LIMIT - 64)}"}}`,
    status: 201,
  },
  {
    name: 'escapes',
    body: () => `{"content":{"a":"${'\\u00e9\\n'.repeat((BODY_LIMIT - 64) / 8)}"}}`,
    status: 201,
  },
  { name: 'deep-64-wide', body: () => deepBody(63, 90_000), status: 201 },
  // refused: deeper than 64, and a million levels
  { name: 'deep-million', body: () => `{"content":{"a":${'['.repeat(2_000_000)}}}`, status: 400 },
];

/** Latency figures of a probe, in ms. */
interface ProbeFigures {
  probes: number;
  failed: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/**
 * Sends the body in `bodyFile` from a process of its own (as an attacker's machine would), from
 * `concurrency` loops that each send it `rounds` times in turn; resolves with the count of each
 * status (or failure).
 */
async function floodFromChild(spec: {
  url: string;
  headers: Record<string, string>;
  bodyFile: string;
  concurrency: number;
  rounds: number;
}): Promise<Record<string, number>> {
  const script = `
    import { readFileSync } from 'node:fs';
    const spec = JSON.parse(process.argv[1]);
    const body = readFileSync(spec.bodyFile);
    const seen = {};
    await Promise.all(Array.from({ length: spec.concurrency }, async () => {
      for (let round = 0; round < spec.rounds; round += 1) {
        let key;
        try {
          const res = await fetch(spec.url, { method: 'POST', headers: spec.headers, body });
          await res.arrayBuffer();
          key = String(res.status);
        } catch (err) {
          key = String(err.cause?.code ?? err);
        }
        seen[key] = (seen[key] ?? 0) + 1;
      }
    }));
    process.stdout.write(JSON.stringify(seen));`;
  const running = promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(spec)],
    { maxBuffer: 1024 * 1024 },
  );
  // the attacker's CPU is not the server's: on this machine they share two cores
  setPriority(running.child.pid!, 19);
  const { stdout } = await running;
  return JSON.parse(stdout) as Record<string, number>;
}

/** Resident memory of a process now and at its peak (MiB), from /proc. */
function residentMib(pid: number): { rss_mib: number; peak_rss_mib: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return {
    rss_mib: Math.round(kib('VmRSS') / 1024),
    peak_rss_mib: Math.round(kib('VmHWM') / 1024),
  };
}

describe('big content: no body under BODY_LIMIT ends the process or stalls another tenant', () => {
  const secretKey = newSecretKey();
  let database: TestDatabase;
  let t: TestApp;
  let service: ServiceProcess;
  let attacker: TestCaller;
  let prober: TestCaller;
  let documentId: number;
  let dir: string;
  let baseline: ProbeFigures;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grc-big-content-'));
    database = await createTestDatabase();
    t = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey }, database);
    attacker = await createCaller(t.app);
    prober = await createCaller(t.app);
    const projectId = await createProject(t.app, attacker.tenantId);
    await createProject(t.app, prober.tenantId);
    documentId = (await createDocument(t.app, attacker.tenantId, projectId)).documentId;
    service = await startService(
      serviceEnv(database.url, secretKey, { WORKERS_ENABLED: 'false', LOG_LEVEL: 'error' }),
      {
        nodeArgs: startScriptFlags(resolve(import.meta.dirname, '../..')),
        readyTimeoutMs: 60_000,
      },
    );
    // warm: the first requests of each kind load and compile code lazily (hundreds of ms)
    const warm = wideBody(20_000, 8, '"warm-up"');
    for (let i = 0; i < 5; i += 1) {
      for (const res of await Promise.all([
        fetch(`${service.baseUrl}/api/v1/projects`, { headers: { authorization: prober.auth } }),
        fetch(`${service.baseUrl}/api/v1/documents/${documentId}/external-revisions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: attacker.auth },
          body: warm,
        }),
      ])) {
        await res.arrayBuffer();
      }
    }
    baseline = await probeDuring(() => sleep(4_000));
    printFigures('big-content-baseline', {
      faults: 0,
      requests: 0,
      acknowledgedWritesLost: 'n/a',
      deliveriesLost: 'n/a',
      duplicates: 'n/a',
      ...baseline,
      ...residentMib(service.pid),
    });
  }, 180_000);

  afterAll(async () => {
    if (service?.alive()) await service.stop('SIGTERM', 20_000);
    await t?.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Probes `GET /projects` as the other tenant every 10 ms until `flood` settles. */
  async function probeDuring(flood: () => Promise<unknown>): Promise<ProbeFigures> {
    let done = false;
    let failed = 0;
    const latencies: number[] = [];
    const probing = (async () => {
      while (!done) {
        const started = performance.now();
        try {
          const res = await fetch(`${service.baseUrl}/api/v1/projects`, {
            headers: { authorization: prober.auth },
          });
          await res.arrayBuffer();
          if (res.status === 200) latencies.push(performance.now() - started);
          else failed += 1;
        } catch {
          failed += 1;
          await sleep(100);
        }
        await sleep(10);
      }
    })();
    try {
      await flood();
    } finally {
      done = true;
      await probing;
    }
    const sorted = latencies.sort((a, b) => a - b);
    return {
      probes: sorted.length,
      failed,
      p50_ms: Math.round(percentile(sorted, 50)),
      p99_ms: Math.round(percentile(sorted, 99)),
      max_ms: Math.round(sorted.at(-1) ?? NaN),
    };
  }

  /** Four stagings of `body` repeated while the probe runs; the figures printed as `name`. */
  async function flood(
    name: string,
    body: string,
  ): Promise<{
    statuses: Record<string, number>;
    figures: ProbeFigures;
  }> {
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT);
    const bodyFile = join(dir, `${name}.json`);
    await writeFile(bodyFile, body);
    let statuses: Record<string, number> = {};
    const figures = await probeDuring(async () => {
      statuses = await floodFromChild({
        url: `${service.baseUrl}/api/v1/documents/${documentId}/external-revisions`,
        headers: { 'content-type': 'application/json', authorization: attacker.auth },
        bodyFile,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
      });
    });
    await rm(bodyFile);
    const alive = service.alive();
    printFigures(`big-content-${name}`, {
      faults: 0,
      requests: CONCURRENCY * ROUNDS,
      acknowledgedWritesLost: 'n/a',
      deliveriesLost: 'n/a',
      duplicates: 'n/a',
      body_bytes: Buffer.byteLength(body),
      statuses: JSON.stringify(statuses),
      alive: String(alive),
      baseline_p99_ms: baseline.p99_ms,
      ...figures,
      ...(alive ? residentMib(service.pid) : {}),
    });
    return { statuses, figures };
  }

  function expectBounded(figures: ProbeFigures): void {
    expect(service.alive()).toBe(true);
    expect(residentMib(service.pid).peak_rss_mib).toBeLessThan(PEAK_RSS_MIB);
    expect(figures.failed).toBe(0);
    expect(figures.p99_ms).toBeLessThanOrEqual(baseline.p99_ms + STALL_MS);
  }

  it.each(SHAPES)(
    '$name: answered $status, the process alive and the probe on time',
    async (shape) => {
      const { statuses, figures } = await flood(shape.name, shape.body());
      expect(statuses).toEqual({ [shape.status]: CONCURRENCY * ROUNDS });
      expectBounded(figures);
    },
  );

  it('any shape drawn under BODY_LIMIT (property)', async () => {
    const leaf = fc.constantFrom('{}', '[]', '0', 'null', 'true', '"s"', '1.5e300', '"\\u00e9"');
    const shape = fc.record({
      kind: fc.constantFrom('array', 'wide', 'deep', 'strings'),
      leaf,
      // how much of BODY_LIMIT the body fills, and its nesting for the deep kind
      fill: fc.double({ min: 0.05, max: 0.98, noNaN: true }),
      levels: fc.integer({ min: 2, max: 5_000 }),
    });
    const samples = fc.sample(shape, {
      numRuns: 3,
      seed: Number(process.env.FAST_CHECK_SEED ?? 34),
    });
    for (const [i, s] of samples.entries()) {
      const budget = Math.floor(BODY_LIMIT * s.fill) - 64;
      let body: string;
      if (s.kind === 'array') {
        body = listBody(Math.floor(budget / (s.leaf.length + 1)), () => s.leaf);
      } else if (s.kind === 'wide') {
        body = wideBody(Math.floor(budget / (s.leaf.length + 12)), 9, s.leaf);
      } else if (s.kind === 'deep') {
        const inner = Math.max(0, Math.floor((budget - 2 * s.levels) / (s.leaf.length + 1)));
        body = `{"content":{"a":${'['.repeat(s.levels)}${Array(inner).fill(s.leaf).join(',')}${']'.repeat(s.levels)}}}`;
      } else {
        body = listBody(Math.floor(budget / 1_000), (n) => `"${String(n).padEnd(997, 'z')}"`);
      }
      const { statuses, figures } = await flood(`drawn-${i}-${s.kind}`, body);
      // each answered 201 (within the limits) or 400 (past them), never anything else
      const answered = Object.entries(statuses);
      expect(answered).toHaveLength(1);
      expect(['201', '400']).toContain(answered[0]![0]);
      expectBounded(figures);
    }
  });
});
