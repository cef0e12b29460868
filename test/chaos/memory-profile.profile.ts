import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { startScriptFlags } from '../../bench/service-flags.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createCaller, type TestCaller } from '../support/factories.js';
import { createDocument, createProject } from '../support/read-factories.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { newSecretKey, serviceEnv, sleep } from './support.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLER = join(ROOT, 'bench/memory-sampler.cjs');
const BODY_LIMIT = 5 * 1024 * 1024;
const MAX_NODES = 100_000;

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
const SHAPES: Record<string, () => string> = {
  'wide-260k-keys': () => wideBody(260_000, 8, '"vvvv"'),
  'tiny-array-1.7M': () => listBody(1_700_000, () => '{}'),
  'wide-100k-long-keys': () => wideBody(MAX_NODES - 1, 44, '1'),
  'array-100k-numbers': () => listBody(MAX_NODES - 2, (i) => `${123456789012 + i}.${i % 997}e-3`),
  'array-100k-strings': () => listBody(MAX_NODES - 2, (i) => `"${String(i).padEnd(46, 's')}"`),
  'one-long-string': () => `{"content":{"a":"${'x'.repeat(BODY_LIMIT - 64)}"}}`,
  escapes: () => `{"content":{"a":"${'\\u00e9\\n'.repeat((BODY_LIMIT - 64) / 8)}"}}`,
  'deep-million': () => `{"content":{"a":${'['.repeat(2_000_000)}}}`,
  'strings-1k': () => listBody(5_000, (n) => `"${String(n).padEnd(997, 'z')}"`),
};

/** Variants: `name=script|extra node args|extra env as JSON` separated by `;` (MEMORY_VARIANTS). */
interface Variant {
  name: string;
  script?: string;
  args: string[];
  env: Record<string, string>;
}
function variants(): Variant[] {
  const spec = process.env.MEMORY_VARIANTS ?? 'current=||{}';
  return spec.split(';').map((v) => {
    // the name ends at the first `=`; flags after it may hold `=` too
    const at = v.indexOf('=');
    const [name, rest] = [v.slice(0, at), v.slice(at + 1)];
    const [script, args, env] = rest.split('|');
    return {
      name,
      ...(script ? { script: resolve(ROOT, script) } : {}),
      args: args ? args.split(' ').filter(Boolean) : [],
      env: env ? (JSON.parse(env) as Record<string, string>) : {},
    };
  });
}

function statusKib(pid: number, name: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
}

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
  setPriority(running.child.pid!, 19);
  const { stdout } = await running;
  return JSON.parse(stdout) as Record<string, number>;
}

interface Sample {
  t: number;
  thread: string;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  physical: number;
  malloced: number;
  spaces: Record<string, number>;
}

/**
 * Not a test (no file name the suites match): a memory profile of the service as `npm start` runs
 * it, under big-content's flood (bench/README.md, "Memory under big bodies", has the command).
 * Each variant (MEMORY_VARIANTS, e.g. `before=.ab/base/dist/src/main.js||{};after=||{}`: a build's
 * entry point, extra node flags, extra env) starts a service with bench/memory-sampler.cjs
 * preloaded; for each shape (MEMORY_SHAPES) 4 loops (MEMORY_CONCURRENCY) send it 3 times
 * (MEMORY_ROUNDS) while /proc's VmRSS is read every 10 ms. Prints, per variant and shape, the peak
 * RSS and each thread's peak heap figures (MB) over the flood.
 */
describe('memory profile: big bodies', () => {
  const secretKey = newSecretKey();
  let database: TestDatabase;
  let t: TestApp;
  let attacker: TestCaller;
  let prober: TestCaller;
  let documentId: number;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grc-memory-'));
    database = await createTestDatabase();
    t = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey }, database);
    attacker = await createCaller(t.app);
    prober = await createCaller(t.app);
    const projectId = await createProject(t.app, attacker.tenantId);
    await createProject(t.app, prober.tenantId);
    documentId = (await createDocument(t.app, attacker.tenantId, projectId)).documentId;
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('profiles', async () => {
    const shapes = (process.env.MEMORY_SHAPES ?? Object.keys(SHAPES).join(',')).split(',');
    const concurrency = Number(process.env.MEMORY_CONCURRENCY ?? 4);
    const rounds = Number(process.env.MEMORY_ROUNDS ?? 3);
    const report: string[] = [];
    // printed as it goes too: a variant that fails to start does not lose the others' lines
    const push = (line: string): void => {
      report.push(line);
      process.stderr.write(`MEMORY ${line}\n`);
    };
    const repeats = Number(process.env.MEMORY_REPEAT ?? 1);
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const v of variants()) {
        const samplesFile = join(dir, `${v.name}-${repeat}.jsonl`);
        const service: ServiceProcess = await startService(
          serviceEnv(database.url, secretKey, {
            WORKERS_ENABLED: 'false',
            LOG_LEVEL: 'error',
            MEMORY_SAMPLES_FILE: samplesFile,
            ...v.env,
          }),
          {
            nodeArgs: [...startScriptFlags(ROOT), '--require', SAMPLER, ...v.args],
            readyTimeoutMs: 60_000,
            ...(v.script ? { script: v.script } : {}),
          },
        );
        try {
          const warm = wideBody(20_000, 8, '"warm-up"');
          for (let i = 0; i < 5; i += 1) {
            for (const res of await Promise.all([
              fetch(`${service.baseUrl}/api/v1/projects`, {
                headers: { authorization: prober.auth },
              }),
              fetch(`${service.baseUrl}/api/v1/documents/${documentId}/external-revisions`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: attacker.auth },
                body: warm,
              }),
            ])) {
              await res.arrayBuffer();
            }
          }
          await sleep(2_000);
          const rest = Math.round(statusKib(service.pid, 'VmRSS') / 1024);
          push(`${v.name}#${repeat} rest rss ${rest} MiB`);
          for (const name of shapes) {
            const bodyFile = join(dir, `${name}.json`);
            await writeFile(bodyFile, SHAPES[name]!());
            const from = Date.now();
            let peak = 0;
            let threads = 0;
            const watcher = setInterval(() => {
              peak = Math.max(peak, statusKib(service.pid, 'VmRSS'));
              threads = Math.max(threads, statusKib(service.pid, 'Threads'));
            }, 10);
            // MEMORY_PROBE=1: another tenant's GET every 10 ms beside the flood, as big-content has
            let probing = process.env.MEMORY_PROBE === '1';
            const probe = (async () => {
              while (probing) {
                try {
                  const res = await fetch(`${service.baseUrl}/api/v1/projects`, {
                    headers: { authorization: prober.auth },
                  });
                  await res.arrayBuffer();
                } catch {
                  await sleep(100);
                }
                await sleep(10);
              }
            })();
            const statuses = await floodFromChild({
              url: `${service.baseUrl}/api/v1/documents/${documentId}/external-revisions`,
              headers: { 'content-type': 'application/json', authorization: attacker.auth },
              bodyFile,
              concurrency,
              rounds,
            });
            probing = false;
            await probe;
            clearInterval(watcher);
            const to = Date.now();
            // what stays resident once the flood is over (it adds up shape after shape)
            await sleep(3_000);
            const after = Math.round(statusKib(service.pid, 'VmRSS') / 1024);
            await rm(bodyFile);
            // the sampled thread figures of the flood, each at its peak
            const samples = readFileSync(samplesFile, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as Sample)
              .filter((s) => s.t >= from && s.t <= to);
            const byThread = new Map<string, Sample[]>();
            for (const s of samples) byThread.set(s.thread, [...(byThread.get(s.thread) ?? []), s]);
            const max = (ss: Sample[], f: (s: Sample) => number): number => Math.max(...ss.map(f));
            const parts = [...byThread.entries()].map(
              ([thread, ss]) =>
                `${thread}: heapTotal ${max(ss, (s) => s.heapTotal)} used ${max(ss, (s) => s.heapUsed)} ` +
                `new ${max(ss, (s) => s.spaces['new'] ?? 0)} old ${max(ss, (s) => s.spaces['old'] ?? 0)} ` +
                `lo ${max(ss, (s) => s.spaces['large_object'] ?? 0)} nlo ${max(ss, (s) => s.spaces['new_large_object'] ?? 0)} ` +
                `code ${max(ss, (s) => s.spaces['code'] ?? 0)} ext ${max(ss, (s) => s.external)} ab ${max(ss, (s) => s.arrayBuffers)} ` +
                `malloc ${max(ss, (s) => s.malloced)}`,
            );
            push(
              `${v.name}#${repeat} ${name}: ${JSON.stringify(statuses)} ${to - from} ms peak rss ${Math.round(peak / 1024)} MiB, 3 s after ${after}, threads ${threads}\n    ${parts.join('\n    ')}`,
            );
          }
          push(
            `${v.name}#${repeat} VmHWM ${Math.round(statusKib(service.pid, 'VmHWM') / 1024)} MiB`,
          );
        } finally {
          await service.stop('SIGTERM', 20_000);
        }
      }
    }
    process.stdout.write(`\nMEMORY PROFILE\n${report.join('\n')}\n`);
  }, 1_200_000);
});
