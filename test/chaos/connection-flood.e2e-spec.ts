import { execFile, execFileSync } from 'node:child_process';
import http from 'node:http';
import { setPriority } from 'node:os';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startScriptFlags } from '../../bench/service-flags.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createCaller, type TestCaller } from '../support/factories.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { newSecretKey, printFigures, serviceEnv, sleep } from './support.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The flooding address; the probe comes from 127.0.0.1 (all of 127/8 is loopback on Linux). */
const ATTACKER = '127.0.0.2';
const PROBE_FROM = '127.0.0.1';
/** What the issue measured: 4,200 connections, more than MAX_CONNECTIONS (4096). */
const WANTED_CONNECTIONS = 4_200;

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

/** The hard limit on open files a child may raise its own to (`ulimit -Hn`). */
function hardFileLimit(): number {
  const out = execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim();
  return out === 'unlimited' ? 1_048_576 : Number(out);
}

/**
 * Runs `script` (an ES module, its spec in argv[1]) in a process of its own, at the lowest CPU
 * priority (as an attacker's machine: its work does not slow the service's), with its open-file
 * limit raised to the hard limit for its thousands of sockets; resolves with what it prints.
 */
async function runAttacker(script: string, spec: object): Promise<Record<string, number>> {
  const running = promisify(execFile)(
    'sh',
    [
      '-c',
      'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" --input-type=module -e "$1" "$2"',
      process.execPath,
      script,
      JSON.stringify(spec),
    ],
    { cwd: ROOT, maxBuffer: 1024 * 1024 },
  );
  setPriority(running.child.pid!, 19);
  const { stdout } = await running;
  return JSON.parse(stdout) as Record<string, number>;
}

/**
 * `count` connections from the attacker's address, each trickling a request head (a header line
 * every 5 s) or, for `slowBodies` of them, an authenticated body (a byte every 5 s); each one the
 * server closes is opened again `reopenMs` later, until `durationMs` pass.
 */
const TRICKLE = `
  import net from 'node:net';
  const spec = JSON.parse(process.argv[1]);
  const seen = { opened: 0, dropped: 0, answered408: 0, answeredOther: 0, errors: 0 };
  const until = Date.now() + spec.durationMs;
  const sockets = new Set();
  function open(i) {
    if (Date.now() > until) return;
    const slowBody = i < spec.slowBodies;
    const socket = net.connect({ port: spec.port, host: '127.0.0.1', localAddress: spec.from, allowHalfOpen: true });
    sockets.add(socket);
    let received = '';
    let timer;
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      seen.opened += 1;
      socket.write(slowBody
        ? 'POST /api/v1/webhooks HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: ' + spec.auth + '\\r\\nContent-Type: application/json\\r\\nContent-Length: 100000\\r\\n\\r\\n{'
        : 'GET /api/v1/projects HTTP/1.1\\r\\nHost: x\\r\\n');
      timer = setInterval(() => socket.write(slowBody ? ' ' : 'X-Slow: 1\\r\\n'), 5000);
    });
    socket.on('data', (d) => (received += d));
    socket.on('error', () => { seen.errors += 1; });
    const done = () => {
      if (!sockets.delete(socket)) return;
      clearInterval(timer);
      socket.destroy();
      if (received === '') seen.dropped += 1;
      else if (received.startsWith('HTTP/1.1 408')) seen.answered408 += 1;
      else seen.answeredOther += 1;
      setTimeout(() => open(i), spec.reopenMs);
    };
    socket.on('end', done);
    socket.on('close', done);
  }
  for (let i = 0; i < spec.count; i += 1) open(i);
  await new Promise((ok) => setTimeout(ok, spec.durationMs));
  for (const socket of sockets) socket.destroy();
  process.stdout.write(JSON.stringify(seen));
  process.exit(0);`;

/** Rounds of `concurrency` POSTs of `bytes` without a credential, by fetch, until `durationMs` pass. */
const UPLOADS = `
  import { Agent, fetch } from 'undici';
  const spec = JSON.parse(process.argv[1]);
  // the client's own option: undici's connect options take no localAddress (it is overridden)
  const dispatcher = new Agent({ localAddress: spec.from });
  const body = Buffer.alloc(spec.bytes, 0x20);
  const seen = {};
  const until = Date.now() + spec.durationMs;
  while (Date.now() < until) {
    await Promise.all(Array.from({ length: spec.concurrency }, async () => {
      let key;
      try {
        const res = await fetch(spec.url, { method: 'POST', dispatcher, body, headers: { 'content-type': 'application/json' } });
        await res.arrayBuffer();
        key = String(res.status);
      } catch (err) {
        key = String(err.cause?.code ?? err);
      }
      seen[key] = (seen[key] ?? 0) + 1;
    }));
  }
  process.stdout.write(JSON.stringify(seen));
  process.exit(0);`;

/**
 * Issue 34 item 3 under load: one service as deployed (its own process, `npm start`'s flags and
 * the default limits), an authenticated `GET /projects` on a fresh connection from 127.0.0.1 every
 * 10 ms, while 127.0.0.2 floods. Each flood's figures are printed beside the baseline of the same
 * run (`CHAOS connection-flood-…`); the asserted bounds leave room for this shared machine.
 */
describe('connection floods from one address: another address is still served', () => {
  const secretKey = newSecretKey();
  let database: TestDatabase;
  let t: TestApp;
  let service: ServiceProcess;
  let caller: TestCaller;
  let baseline: ProbeFigures;

  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey }, database);
    caller = await createCaller(t.app);
    service = await startService(
      serviceEnv(database.url, secretKey, { WORKERS_ENABLED: 'false', LOG_LEVEL: 'error' }),
      { nodeArgs: startScriptFlags(ROOT) },
    );
    // warm: the first requests load and compile code lazily
    for (let i = 0; i < 20; i += 1) await probeOnce();
    baseline = await probeFor(8_000);
    printFigures('connection-flood-baseline', {
      faults: 0,
      requests: baseline.probes,
      acknowledgedWritesLost: 'n/a',
      deliveriesLost: 'n/a',
      duplicates: 'n/a',
      ...baseline,
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop('SIGTERM', 20_000);
    await t?.close();
    await database?.drop();
  });

  /** One authenticated GET on a connection of its own; its latency in ms, or undefined if it failed. */
  function probeOnce(): Promise<number | undefined> {
    const started = performance.now();
    return new Promise((done) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: service.port,
          localAddress: PROBE_FROM,
          path: '/api/v1/projects',
          agent: false,
          headers: { authorization: caller.auth, connection: 'close' },
          timeout: 5_000,
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            done(res.statusCode === 200 ? performance.now() - started : undefined),
          );
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => done(undefined));
      req.end();
    });
  }

  async function probeFor(ms: number): Promise<ProbeFigures> {
    const until = Date.now() + ms;
    const latencies: number[] = [];
    let failed = 0;
    while (Date.now() < until) {
      const latency = await probeOnce();
      if (latency === undefined) failed += 1;
      else latencies.push(latency);
      await sleep(10);
    }
    const sorted = latencies.sort((a, b) => a - b);
    return {
      probes: sorted.length + failed,
      failed,
      p50_ms: Math.round(percentile(sorted, 50)),
      p99_ms: Math.round(percentile(sorted, 99)),
      max_ms: Math.round(sorted.at(-1) ?? NaN),
    };
  }

  it('4,200 trickling heads and slow bodies from one address', async () => {
    // the attacker's sockets need file descriptors: scaled down only where the limit is lower
    const count = Math.min(WANTED_CONNECTIONS, hardFileLimit() - 200);
    const durationMs = 40_000;
    const flood = runAttacker(TRICKLE, {
      port: service.port,
      from: ATTACKER,
      auth: caller.auth,
      count,
      slowBodies: 200,
      // at the trickle's own pace: the attacker holds its connections rather than floods SYNs
      // (a few thousand new connections a second overflow the kernel's accept queue, and other
      // clients' SYNs are then dropped and retried a second later: a network-level flood)
      reopenMs: 5_000,
      durationMs,
    });
    // the probe runs once the attacker holds what it can (the server's share: its per-address cap)
    await sleep(5_000);
    const figures = await probeFor(durationMs - 10_000);
    const seen = await flood;
    printFigures('connection-flood-trickle', {
      faults: 0,
      requests: figures.probes,
      acknowledgedWritesLost: 'n/a',
      deliveriesLost: 'n/a',
      duplicates: 'n/a',
      connections: count,
      reopen_ms: 5_000,
      ...seen,
      ...figures,
      baseline_p99_ms: baseline.p99_ms,
    });
    expect(figures.failed).toBe(0);
    // the target is 100 ms; more room here for the machine's other load
    expect(figures.p99_ms).toBeLessThan(Math.max(250, baseline.p99_ms + 150));
    // trickled heads and slow bodies were cut with 408, the rest dropped at once
    expect(seen.answered408).toBeGreaterThan(0);
    expect(seen.dropped).toBeGreaterThan(0);
    expect(service.alive()).toBe(true);
  }, 120_000);

  it('40 concurrent unauthenticated 5 MiB uploads from one address', async () => {
    const durationMs = 20_000;
    const flood = runAttacker(UPLOADS, {
      url: `http://127.0.0.1:${service.port}/api/v1/webhooks`,
      from: ATTACKER,
      bytes: 5 * 1024 * 1024,
      concurrency: 40,
      durationMs,
    });
    await sleep(1_000);
    const figures = await probeFor(durationMs - 3_000);
    const seen = await flood;
    printFigures('connection-flood-uploads', {
      faults: 0,
      requests: figures.probes,
      acknowledgedWritesLost: 'n/a',
      deliveriesLost: 'n/a',
      duplicates: 'n/a',
      ...Object.fromEntries(Object.entries(seen).map(([k, v]) => [`status_${k}`, v])),
      ...figures,
      baseline_p99_ms: baseline.p99_ms,
    });
    expect(figures.failed).toBe(0);
    // each upload is answered 401, or, when the client is still writing once the server has
    // read the 64 KiB it reads of a refused body and closed (LINGER_MS), reset (EPIPE): the
    // documented price of not reading 5 MiB per refused upload; never another status, never a hang
    expect(seen['401']).toBeGreaterThan(0);
    expect(Object.keys(seen).filter((k) => !['401', 'EPIPE', 'ECONNRESET'].includes(k))).toEqual(
      [],
    );
    // the target is a move of 50 ms at most; more room here for the machine's other load
    expect(figures.p99_ms).toBeLessThan(baseline.p99_ms + 150);
    expect(service.alive()).toBe(true);
  }, 120_000);
});
