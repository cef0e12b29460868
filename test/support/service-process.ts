import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
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
}

/**
 * Spawns the built service with exactly `env` (plus PATH, HOME and the run's HTTP_ADAPTER) and
 * waits until `/health/ready` answers 200. Fails with the captured output if it exits or never gets
 * ready.
 */
export async function startService(
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      SEED_DEMO: 'false',
      // `HTTP_ADAPTER=fastify npm test` runs the spawned services on Fastify too
      ...(process.env.HTTP_ADAPTER ? { HTTP_ADAPTER: process.env.HTTP_ADAPTER } : {}),
      ...env,
      PORT: String(port),
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
      ok({ code, signal });
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
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

  const service: ServiceProcess = {
    pid: child.pid!,
    port,
    baseUrl,
    child,
    output,
    alive: () => running,
    exited,
    stop,
    kill: () => stop('SIGKILL'),
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (!running) {
      const { code, signal } = await exited;
      throw new Error(`service exited before ready (code ${code}, signal ${signal}):\n${output()}`);
    }
    try {
      const res = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`service not ready within the deadline:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
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
