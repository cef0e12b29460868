/**
 * The testing kit (`grc-integration-api/testing`): starts the service as a child process for a
 * consumer's own test suite, CommonJS or ESM. CommonJS on purpose, and only `node:` modules: it
 * loads in any jest set-up, whatever that suite's module system; the service itself runs in the
 * child on its own Node.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Every scope a client can hold (CONTRACT §3); `createTenant` grants all unless told otherwise. */
export const ALL_SCOPES = [
  'projects:read',
  'documents:read',
  'revisions:write',
  'locks:write',
  'webhooks:read',
  'webhooks:write',
] as const;

const API_PREFIX = '/api/v1';
const DIST = resolve(__dirname, '..');
/** Where run directories live; a run whose owner died is removed by the next start. */
const RUNS_DIR = join(tmpdir(), 'grc-integration-api-testing');

export interface StartOptions {
  /** A PostgreSQL to use (migrated first). Unset: an embedded PostgreSQL in a temporary directory. */
  databaseUrl?: string;
  /** Extra environment for the service (see the package's `.env.example`). */
  env?: Record<string, string>;
  /** `express` (default) or `fastify`. */
  httpAdapter?: 'express' | 'fastify';
  /** Node to run the service with (it needs Node >= 24). Default: the one running this code. */
  node?: string;
  /** Default 60 s. */
  readyTimeoutMs?: number;
  /** Copy the service's output to this process's stderr as it comes. Default false. */
  printOutput?: boolean;
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is one JSON object (`--json` is added unless given). */
  json: Record<string, unknown> | undefined;
}

export interface CreateTenantOptions {
  name?: string;
  plan?: 'starter' | 'professional' | 'enterprise';
  /** The client's scopes; default all. */
  scopes?: readonly string[];
  projects?: ReadonlyArray<{
    name: string;
    description?: string;
    documents?: ReadonlyArray<{ title: string; content?: Record<string, unknown> }>;
  }>;
  /** Webhooks to create; a receiver's `url` here makes that receiver verify with the new secret. */
  webhooks?: ReadonlyArray<{ name?: string; url: string; events?: readonly string[] }>;
  pats?: ReadonlyArray<{ name: string; scopes?: readonly string[]; expires_in_days?: number }>;
}

export interface CreatedClient {
  client_id: string;
  client_secret: string;
  scopes: string[];
  allowed_ips: string[];
}

export interface CreatedTenant {
  tenant: { tenant_id: number; name: string; plan: string };
  client: CreatedClient;
  /** A bearer access token of `client`. */
  token: string;
  projects: Array<{
    projectId: number;
    name: string;
    documents: Array<{ title: string; documentId: number; versionId: number }>;
  }>;
  webhooks: Array<{ webhookId: number; secret: string; endpoint_url: string; events: string[] }>;
  pats: Array<{ pat_id: number; token: string; expires_at: string }>;
  /** Everything `fixture apply` printed for this tenant. */
  raw: Record<string, unknown>;
}

export interface WebhookDelivery {
  /** `webhook-id` header: the event id. */
  id: string;
  type: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** The Standard Webhooks signature matched one of the receiver's secrets. */
  verified: boolean;
  receivedAt: Date;
}

export interface WebhookReceiver {
  /** Give this as a webhook's `endpoint_url`. */
  url: string;
  /** Every delivery received, verified or not, in arrival order. */
  deliveries: WebhookDelivery[];
  /** Verifies later deliveries with this `whsec_…` secret too (`createTenant` does it for you). */
  addSecret(secret: string): void;
  /** The first verified delivery of `type` (already received or to come), or rejects on timeout. */
  waitFor(
    type: string,
    options?: { timeoutMs?: number; where?: (d: WebhookDelivery) => boolean },
  ): Promise<WebhookDelivery>;
  /** The status answered to the next deliveries (default 204), e.g. 500 to see retries. */
  respondWith(status: number): void;
  close(): Promise<void>;
}

export interface IntegrationApi {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** `<baseUrl>/api/v1` */
  apiUrl: string;
  port: number;
  pid: number;
  /** This run's temporary directory (embedded PostgreSQL under `data/`, the admin socket). */
  runDir: string;
  /** Runs an administration command (as `grc-integration-api <args>`), answered by the service. */
  cli(...args: string[]): Promise<CliResult>;
  /** One `fixture apply`: a tenant with a client holding `scopes`, and a token of that client. */
  createTenant(options?: CreateTenantOptions): Promise<CreatedTenant>;
  /** A client-credentials access token. */
  token(
    client: { client_id: string; client_secret: string },
    scopes?: readonly string[],
  ): Promise<string>;
  /** A local HTTP receiver that verifies signatures; closed by `stop()`. */
  webhookReceiver(): Promise<WebhookReceiver>;
  /** What the service wrote to stdout and stderr. */
  output(): string;
  /** Stops the service (and its embedded PostgreSQL) and removes its temporary directory. */
  stop(): Promise<void>;
}

/** The message the service sends on its IPC channel once it accepts requests. */
interface ReadyMessage {
  type: 'grc-integration-api:ready';
  pid: number;
  port: number;
  url: string;
}

interface RunOwner {
  ownerPid: number;
  servicePid?: number;
}

function alive(pid: number | undefined): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms && alive(pid); waited += 100) await sleep(100);
  return !alive(pid);
}

/**
 * Removes the run directories of test processes that died without `stop()` (a SIGKILLed jest),
 * stopping what they left running: the service if it somehow outlived its parent, then the
 * embedded PostgreSQL (a fast shutdown).
 */
export async function cleanStaleRuns(): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(RUNS_DIR).catch(() => [] as string[]);
  for (const entry of entries) {
    const dir = join(RUNS_DIR, entry);
    let owner: RunOwner;
    try {
      owner = JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as RunOwner;
    } catch {
      continue; // being created right now, or not ours
    }
    if (alive(owner.ownerPid)) continue;
    if (owner.servicePid && alive(owner.servicePid) && /node/.test(commandOf(owner.servicePid))) {
      process.kill(owner.servicePid, 'SIGTERM');
      if (!(await waitGone(owner.servicePid, 10_000))) process.kill(owner.servicePid, 'SIGKILL');
    }
    const pidFile = join(dir, 'data', 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (alive(pid) && /postgres/.test(commandOf(pid))) {
        process.kill(pid, 'SIGINT');
        if (!(await waitGone(pid, 10_000))) process.kill(pid, 'SIGKILL');
      }
    }
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
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

/** Sends one command line to the service's admin socket (the protocol of `grc-integration-api`). */
function adminCall(socketPath: string, argv: readonly string[]): Promise<Omit<CliResult, 'json'>> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    const socket = connect(socketPath, () => {
      socket.end(`${JSON.stringify({ argv, cwd: process.cwd() })}\n`);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', fail);
    socket.on('close', () => {
      try {
        ok(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<CliResult, 'json'>);
      } catch {
        fail(new Error('the service closed the admin connection without an answer'));
      }
    });
  });
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, key = the secret's bytes. */
function signatureMatches(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

async function startReceiver(): Promise<WebhookReceiver> {
  const secrets: string[] = [];
  const deliveries: WebhookDelivery[] = [];
  const waiters = new Set<() => void>();
  let status = 204;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string') headers[k] = v;
      }
      const body = parseJson(text) ?? {};
      const verified = secrets.some((s) => signatureMatches(s, headers, text));
      deliveries.push({
        id: headers['webhook-id'] ?? '',
        type: typeof body.type === 'string' ? body.type : '',
        body,
        headers,
        verified,
        receivedAt: new Date(),
      });
      res.statusCode = verified ? status : 401;
      res.end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    deliveries,
    addSecret: (secret) => {
      if (!secrets.includes(secret)) secrets.push(secret);
    },
    respondWith: (s) => {
      status = s;
    },
    waitFor: (type, options = {}) =>
      new Promise((ok, fail) => {
        const find = (): WebhookDelivery | undefined =>
          deliveries.find((d) => d.verified && d.type === type && (options.where?.(d) ?? true));
        const found = find();
        if (found) return ok(found);
        const timeoutMs = options.timeoutMs ?? 15_000;
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(
            new Error(
              `no verified ${type} delivery within ${timeoutMs} ms (received: ${
                deliveries.map((d) => `${d.type}${d.verified ? '' : ' (unverified)'}`).join(', ') ||
                'none'
              })`,
            ),
          );
        }, timeoutMs);
        const check = (): void => {
          const hit = find();
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          ok(hit);
        };
        waiters.add(check);
      }),
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

/**
 * Starts the service on a free port and resolves once it accepts requests (its IPC `ready`
 * message). The service exits when this process does, even when this one is SIGKILLed: its IPC
 * channel closes and it shuts down, stopping its embedded PostgreSQL.
 */
export async function startIntegrationApi(options: StartOptions = {}): Promise<IntegrationApi> {
  await cleanStaleRuns();
  await mkdir(RUNS_DIR, { recursive: true, mode: 0o755 });
  const runDir = await mkdtemp(join(RUNS_DIR, 'run-'));
  // the embedded PostgreSQL runs as the `postgres` user when this runs as root: it must reach DATA_DIR
  await chmod(runDir, 0o755);
  const owner: RunOwner = { ownerPid: process.pid };
  await writeFile(join(runDir, 'owner.json'), JSON.stringify(owner));

  const node = options.node ?? process.execPath;
  const socketPath = join(runDir, 'admin.sock');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'false',
    // the receivers of `webhookReceiver()` listen on loopback over http
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // no platform listener: its default port (3001) would be shared by every service started
    PLATFORM_API_PORT: 'off',
    ...options.env,
    PORT: '0',
    DATA_DIR: join(runDir, 'data'),
    ADMIN_SOCKET: socketPath,
    HTTP_ADAPTER: options.httpAdapter ?? options.env?.HTTP_ADAPTER ?? 'express',
  };
  if (options.databaseUrl) {
    env.DATABASE_URL = options.databaseUrl;
    env.WEBHOOK_SECRET_KEY ??= randomBytes(32).toString('base64');
    const migrated = await runNode(node, join(DIST, 'migrate-cli.js'), env);
    if (migrated.code !== 0) {
      await rm(runDir, { recursive: true, force: true });
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
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  owner.servicePid = child.pid;
  await writeFile(join(runDir, 'owner.json'), JSON.stringify(owner));

  const removeRun = (): Promise<void> => rm(runDir, { recursive: true, force: true });
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  let ready: ReadyMessage;
  try {
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
      void exited.then((code) => {
        clearTimeout(timer);
        fail(new Error(`the service exited (code ${code}) before it was ready:\n${output}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    await removeRun();
    throw err;
  }
  // a suite that forgets stop() must still be able to exit; the service then follows it
  child.unref();
  child.channel?.unref();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  const baseUrl = `http://127.0.0.1:${ready.port}`;
  const apiUrl = `${baseUrl}${API_PREFIX}`;
  const receivers: WebhookReceiver[] = [];
  let stopped: Promise<void> | undefined;

  const cli = async (...args: string[]): Promise<CliResult> => {
    const argv = args.includes('--json') ? args : [...args, '--json'];
    const answer = await adminCall(socketPath, argv);
    return { ...answer, json: parseJson(answer.stdout) };
  };

  const token = async (
    client: { client_id: string; client_secret: string },
    scopes?: readonly string[],
  ): Promise<string> => {
    const res = await fetch(`${apiUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        ...(scopes ? { scope: scopes.join(' ') } : {}),
      }),
    });
    const body = (await res.json()) as { access_token?: string };
    if (res.status !== 200 || !body.access_token) {
      throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
    }
    return body.access_token;
  };

  const createTenant = async (o: CreateTenantOptions = {}): Promise<CreatedTenant> => {
    const fixture = {
      tenants: [
        {
          name: o.name ?? `tenant ${randomBytes(4).toString('hex')}`,
          plan: o.plan ?? 'enterprise',
          clients: [{ name: 'testing-kit', scopes: o.scopes ?? ALL_SCOPES }],
          projects: o.projects ?? [],
          pats: o.pats?.map((p) => ({ ...p, scopes: p.scopes ?? ALL_SCOPES })) ?? [],
          webhooks:
            o.webhooks?.map((w, i) => ({
              name: w.name ?? `webhook ${i + 1}`,
              endpoint_url: w.url,
              events: w.events ?? ['*'],
            })) ?? [],
        },
      ],
    };
    const file = join(runDir, `fixture-${randomBytes(6).toString('hex')}.json`);
    await writeFile(file, JSON.stringify(fixture), { mode: 0o600 });
    try {
      const result = await cli('fixture', 'apply', '--file', file);
      const made = (result.json?.tenants as Array<Record<string, unknown>> | undefined)?.[0];
      if (result.exitCode !== 0 || !made) {
        throw new Error(
          `fixture apply failed (exit ${result.exitCode}): ${result.stdout}${result.stderr}`,
        );
      }
      const created = made as unknown as Omit<CreatedTenant, 'tenant' | 'token' | 'raw'> & {
        tenant_id: number;
        name: string;
        plan: string;
        clients: CreatedClient[];
      };
      for (const w of created.webhooks) {
        for (const r of receivers) if (w.endpoint_url === r.url) r.addSecret(w.secret);
      }
      const client = created.clients[0]!;
      return {
        tenant: { tenant_id: created.tenant_id, name: created.name, plan: created.plan },
        client,
        token: await token(client),
        projects: created.projects,
        webhooks: created.webhooks,
        pats: created.pats,
        raw: made,
      };
    } finally {
      await rm(file, { force: true });
    }
  };

  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await Promise.all(receivers.map((r) => r.close()));
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      await removeRun();
    })());

  return {
    baseUrl,
    apiUrl,
    port: ready.port,
    pid: ready.pid,
    runDir,
    cli,
    createTenant,
    token,
    webhookReceiver: async () => {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    },
    output: () => output,
    stop,
  };
}
