import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ReadyMessage } from '../../src/ready-signal.js';
import { freePort } from '../../src/common/net/free-port.js';

export { freePort };

/** The built HTTP entry point (`npm run build`; `npm test` builds first). */
export const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `node dist/src/main.js`, its output captured. */
export interface ServiceProcess {
  pid: number;
  port: number;
  baseUrl: string;
  /** The platform listener's port (PLATFORM_API_PORT: a free one unless the test says). */
  platformPort?: number;
  /** METRICS_PORT's listener's port, when the test sets METRICS_PORT. */
  metricsPort?: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** True until the process has exited. */
  alive(): boolean;
  exited: Promise<Exit>;
  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`, which then fails). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** SIGKILL: no shutdown hook runs, as in a crash. */
  kill(): Promise<Exit>;
}

export interface StartOptions {
  port?: number;
  /** Node flags before the script (e.g. the heap flags of `npm start`). */
  nodeArgs?: string[];
  readyTimeoutMs?: number;
  /** Another build's entry point (an A/B of two builds); MAIN by default. */
  script?: string;
}

/**
 * Spawns the built service with exactly `env` (plus PATH, HOME, the run's HTTP_ADAPTER and a
 * READY_FILE) and waits until `/health/ready` answers 200. Without `options.port` the service binds
 * a port of its own choosing (PORT=0) and its READY_FILE says which: a port picked free here could
 * be taken by another test worker before the service, seconds later, binds it. Fails with the
 * captured output if it exits or never gets ready. The platform listener binds a free port too
 * (PLATFORM_API_PORT=0, unless `env` says otherwise): services run in parallel.
 */
export async function startService(
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<ServiceProcess> {
  const readyDir = mkdtempSync(join(tmpdir(), 'grc-service-'));
  const readyFile = join(readyDir, 'ready.json');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script ?? MAIN], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      SEED_DEMO: 'false',
      PLATFORM_API_PORT: '0',
      // `HTTP_ADAPTER=fastify npm test` runs the spawned services on Fastify too
      ...(process.env.HTTP_ADAPTER ? { HTTP_ADAPTER: process.env.HTTP_ADAPTER } : {}),
      ...env,
      PORT: String(options.port ?? 0),
      READY_FILE: readyFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  let running = true;
  const exited = new Promise<Exit>((ok) =>
    child.once('exit', (code, signal) => {
      running = false;
      rmSync(readyDir, { recursive: true, force: true });
      ok({ code, signal });
    }),
  );
  const output = () => chunks.join('');

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<Exit> => {
    if (!running) return exited;
    child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((ok) => {
      timer = setTimeout(() => ok('timeout'), timeoutMs);
    });
    const result = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (result === 'timeout') {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`service did not exit within ${timeoutMs} ms of ${signal}:\n${output()}`);
    }
    return result;
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let ready: ReadyMessage | undefined;
  for (;;) {
    if (!running) {
      const { code, signal } = await exited;
      throw new Error(`service exited before ready (code ${code}, signal ${signal}):\n${output()}`);
    }
    ready ??= announced(readyFile, child.pid!);
    if (ready !== undefined) {
      const { port, platformPort, metricsPort } = ready;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health/ready`, {
          signal: AbortSignal.timeout(2_000),
        });
        if (res.status === 200) {
          return {
            pid: child.pid!,
            port,
            baseUrl: `http://127.0.0.1:${port}`,
            platformPort,
            metricsPort,
            child,
            output,
            alive: () => running,
            exited,
            stop,
            kill: () => stop('SIGKILL'),
          };
        }
      } catch {
        // not answering yet
      }
    }
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`service not ready within the deadline:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What the service `pid` announced in `readyFile` (written by rename: whole or absent). */
function announced(readyFile: string, pid: number): ReadyMessage | undefined {
  let text: string;
  try {
    text = readFileSync(readyFile, 'utf8');
  } catch {
    return undefined;
  }
  const ready = JSON.parse(text) as ReadyMessage;
  if (ready.pid !== pid)
    throw new Error(`${readyFile} was written by pid ${ready.pid}, not ${pid}`);
  return ready;
}

/** `fetch` with a deadline; resolves to `timeout` instead of hanging. */
export async function timedFetch(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Response | 'timeout' | Error> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 10_000) });
  } catch (err) {
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      return 'timeout';
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}
