import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminCall, createKitKey } from './admin-socket.cjs';
import { handleOn } from './handle.cjs';
import type { IntegrationApi, ServiceAddress, StartOptions } from './kit-types.cjs';
import { serviceNode } from './node-binary.cjs';
import { cleanStaleRuns, newRun, removeRunDir, writeOwner } from './runs.cjs';

export { addressOf, handleOn } from './handle.cjs';
export {
  DEFAULT_ACTING_USER,
  type CliResult,
  type CreatedClient,
  type CreatedTenant,
  type CreateTenantOptions,
  type IntegrationApi,
  type KitPlatformPaths,
  type PlatformClient,
  type ServiceAddress,
  type StartOptions,
} from './kit-types.cjs';

/** dist/src: the service's entry points. */
const DIST = resolve(__dirname, '..');
/** The package's directory, whose node_modules may hold the `node` package. */
const PACKAGE_DIR = resolve(DIST, '..', '..');

/** The message the service sends on its IPC channel once it accepts requests. */
interface ReadyMessage {
  type: 'grc-integration-api:ready';
  pid: number;
  port: number;
  url: string;
  platformPort?: number;
}

function runNode(
  node: string,
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(node, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('error', fail);
    child.once('exit', (code) => ok({ code, output }));
  });
}

/** `host` as the kit reaches it: a wildcard address is reached on loopback. */
function reachableHost(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the service on a free port and resolves once it accepts requests (its IPC `ready`
 * message). The service exits when this process does, even when this one is SIGKILLed: its IPC
 * channel closes and it shuts down, stopping its embedded PostgreSQL. A Node that cannot run it
 * is refused before anything starts.
 */
export async function startIntegrationApi(options: StartOptions = {}): Promise<IntegrationApi> {
  const node = await serviceNode(options.node, PACKAGE_DIR);
  await cleanStaleRuns();
  const { runDir, owner } = await newRun();
  const removeRun = (): Promise<void> => removeRunDir(runDir);

  const socketPath = join(runDir, 'admin.sock');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'false',
    // the receivers of `webhookReceiver()` listen on loopback over http
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // the platform listener on a free port of loopback: its default (3001) would be shared by
    // every service started; PLATFORM_API_PORT=off in `env` turns it off
    PLATFORM_API_PORT: '0',
    PLATFORM_API_HOST: '127.0.0.1',
    ...options.env,
    PORT: '0',
    DATA_DIR: join(runDir, 'data'),
    ADMIN_SOCKET: socketPath,
    TESTING_COMMANDS: 'true',
    HTTP_ADAPTER: options.httpAdapter ?? options.env?.HTTP_ADAPTER ?? 'express',
  };
  if (options.databaseUrl) {
    env.DATABASE_URL = options.databaseUrl;
    env.WEBHOOK_SECRET_KEY ??= randomBytes(32).toString('base64');
    const migrated = await runNode(node, join(DIST, 'migrate-cli.js'), env).catch((err: Error) => ({
      code: null,
      output: err.message,
    }));
    if (migrated.code !== 0) {
      await removeRun();
      throw new Error(`migrating ${options.databaseUrl} failed:\n${migrated.output}`);
    }
  }

  const child: ChildProcess = spawn(node, [join(DIST, 'main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const capture = (c: Buffer): void => {
    const text = c.toString('utf8');
    output += text;
    if (options.printOutput) process.stderr.write(text);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  // a child that could not be spawned emits `error` and `close`, never `exit`
  const exited = new Promise<string>((ok) => {
    child.once('exit', (code, signal) => ok(`code ${code ?? signal}`));
    child.once('error', (err) => ok(err.message));
  });

  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  let ready: ReadyMessage;
  try {
    if (child.pid) await writeOwner(runDir, { ...owner, servicePid: child.pid });
    ready = await new Promise<ReadyMessage>((ok, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`the service was not ready within ${readyTimeoutMs} ms:\n${output}`)),
        readyTimeoutMs,
      );
      child.on('message', (m: ReadyMessage) => {
        if (m?.type !== 'grc-integration-api:ready') return;
        clearTimeout(timer);
        ok(m);
      });
      void exited.then((how) => {
        clearTimeout(timer);
        fail(new Error(`the service exited (${how}) before it was ready:\n${output}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    await removeRun();
    throw err;
  }
  let platform: ServiceAddress['platform'];
  if (ready.platformPort !== undefined) {
    try {
      const { key, keyId } = await createKitKey(socketPath);
      const host = reachableHost(env.PLATFORM_API_HOST ?? '127.0.0.1');
      platform = { url: `http://${host}:${ready.platformPort}`, key, keyId };
    } catch (err) {
      child.kill('SIGKILL');
      await exited;
      await removeRun();
      throw err;
    }
  }
  // a suite that forgets stop() must still be able to exit; the service then follows it
  child.unref();
  child.channel?.unref();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  const stopService = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      // a PostgreSQL of the caller's outlives the service: no key of every scope is left in it
      if (platform && options.databaseUrl) {
        await adminCall(socketPath, [
          'platform-key',
          'revoke',
          '--key',
          String(platform.keyId),
          '--json',
        ]).catch(() => undefined);
      }
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await removeRun();
  };
  return handleOn(
    {
      baseUrl: `http://127.0.0.1:${ready.port}`,
      port: ready.port,
      pid: ready.pid,
      runDir,
      socketPath,
      ...(platform ? { platform } : {}),
    },
    { owned: true, stop: stopService, output: () => output },
  );
}
