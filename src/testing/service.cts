import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import type { paths as PlatformPaths } from 'grc-integration-api/platform-api-types';
import type { EventData, SubscribableEventType } from './events.cjs';
import { serviceNode } from './node-binary.cjs';
import { startReceiver, type WebhookReceiver } from './receiver.cjs';
import { cleanStaleRuns, newRun, removeRunDir, writeOwner } from './runs.cjs';
import { ALL_PLATFORM_SCOPES, ALL_SCOPES } from './scopes.cjs';

const API_PREFIX = '/api/v1';
/** The platform document's paths carry it (`/platform/v1/tenants`). */
const PLATFORM_PREFIX = '/platform/v1';
/** `X-Acting-User` of the kit's platform calls, unless a call sets its own. */
export const DEFAULT_ACTING_USER = 'testing-kit';

/** An operation's parameters with `X-Acting-User` optional: the kit sends one by default. */
type ActorOptional<P> = P extends { header: infer H }
  ? Omit<P, 'header'> & { header?: Omit<H, 'X-Acting-User'> & { 'X-Acting-User'?: string } }
  : P;

type WithActorOptional<Operation> = Operation extends { parameters: infer P }
  ? Omit<Operation, 'parameters'> & { parameters: ActorOptional<P> }
  : Operation;

/** The platform document's paths, as the kit's client takes them. */
export type KitPlatformPaths = {
  [Path in keyof PlatformPaths]: {
    [Method in keyof PlatformPaths[Path]]: WithActorOptional<PlatformPaths[Path][Method]>;
  };
};

/**
 * A typed client of the platform API (openapi-fetch over the package's `platform-api-types`):
 * `api.platform.GET('/platform/v1/tenants')`. It sends the kit's platform key and
 * `X-Acting-User: testing-kit` (so the document's required header is optional here); a call's
 * own `params: { header: { 'X-Acting-User': … } }` or `headers` override either.
 */
export type PlatformClient = Client<KitPlatformPaths, 'application/json'>;
/** dist/src: the service's entry points. */
const DIST = resolve(__dirname, '..');
/** The package's directory, whose node_modules may hold the `node` package. */
const PACKAGE_DIR = resolve(DIST, '..', '..');

export interface StartOptions {
  /** A PostgreSQL to use (migrated first). Unset: an embedded PostgreSQL in a temporary directory. */
  databaseUrl?: string;
  /** Extra environment for the service (see the package's `.env.example`). */
  env?: Record<string, string>;
  /** `express` (default) or `fastify`. */
  httpAdapter?: 'express' | 'fastify';
  /**
   * Node to run the service with (it needs Node >= 24). Default: this process's own when it is
   * 24 or later, else the `node` package's binary (`npm install --save-dev node@24`).
   */
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
  webhooks?: ReadonlyArray<{
    name?: string;
    url: string;
    events?: ReadonlyArray<SubscribableEventType | '*'>;
  }>;
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
  /** Everything the platform API and `fixture apply` answered for this tenant, merged. */
  raw: Record<string, unknown>;
}

export interface IntegrationApi {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** `<baseUrl>/api/v1` */
  apiUrl: string;
  port: number;
  pid: number;
  /** The run's temporary directory (embedded PostgreSQL under `data/`, the admin socket). */
  runDir: string;
  /**
   * `http://127.0.0.1:<port>`: the platform API's listener (PLATFORM_API_PORT, a free port); its
   * paths start with `/platform/v1`. Throws when the service runs with `PLATFORM_API_PORT=off`.
   */
  platformUrl: string;
  /**
   * The platform key (`gpk_…`, every platform scope) the kit made when it started the service,
   * for what `platform` does not do (a raw `fetch`, an event stream). Throws like `platformUrl`.
   */
  platformKey: string;
  /**
   * A typed client of the platform API, authenticated with `platformKey`, sending
   * `X-Acting-User: testing-kit` (a call's own `headers` override it):
   * `await api.platform.POST('/platform/v1/revisions/{revisionId}/accept', { params: { path:
   * { revisionId } }, body: {}, headers: { 'X-Acting-User': 'jane@acme' } })`.
   * Throws like `platformUrl`.
   */
  platform: PlatformClient;
  /** Runs an administration command (as `grc-integration-api <args>`), answered by the service. */
  cli(...args: string[]): Promise<CliResult>;
  /**
   * A tenant and its client holding `scopes` made through the platform API (`POST /tenants`,
   * `POST /tenants/{tenantId}/clients`), what else `options` asks for in one `fixture apply`,
   * and a token of the client. With the platform API off, all of it in one `fixture apply`.
   */
  createTenant(options?: CreateTenantOptions): Promise<CreatedTenant>;
  /** A client-credentials access token. */
  token(
    client: { client_id: string; client_secret: string },
    scopes?: readonly string[],
  ): Promise<string>;
  /** A local HTTP receiver that verifies signatures; closed by `stop()`. */
  webhookReceiver(): Promise<WebhookReceiver>;
  /**
   * Empties the tenants' data (projects, documents, credentials, webhooks, events, deliveries;
   * the tenants and the audit trail stay) and this handle's receivers' deliveries. A service of
   * its own (`startIntegrationApi`): every tenant's. The shared one (`attachIntegrationApi`): the
   * tenants this handle created, so suites running alongside keep theirs.
   */
  reset(): Promise<{ ms: number }>;
  /**
   * Publishes an event of `type` for `tenant` through the service's outbox, as a real change
   * would: each subscribed active webhook of the tenant gets a signed delivery.
   */
  emit<T extends SubscribableEventType>(
    type: T,
    data: EventData<T>,
    options: { tenant: number | CreatedTenant },
  ): Promise<{ event_id: string }>;
  /** What the service wrote to stdout and stderr (empty when attached to the shared service). */
  output(): string;
  /**
   * Stops the service (and its embedded PostgreSQL) and removes its temporary directory; attached
   * to the shared service, closes this handle's receivers only.
   */
  stop(): Promise<void>;
}

/** What a handle needs of a running service; the shared service publishes it to the workers. */
export interface ServiceAddress {
  baseUrl: string;
  port: number;
  pid: number;
  runDir: string;
  socketPath: string;
  /** The platform listener's origin and the kit's key there; absent with PLATFORM_API_PORT=off. */
  platform?: { url: string; key: string; keyId: number };
}

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

/** A command's JSON answer, or an error naming the command and what it printed. */
function answerOf(what: string, result: CliResult): Record<string, unknown> {
  if (result.exitCode !== 0 || !result.json || 'error' in result.json) {
    throw new Error(`${what} failed (exit ${result.exitCode}): ${result.stdout}${result.stderr}`);
  }
  return result.json;
}

function platformClientOf(url: string, key: string): PlatformClient {
  return createClient<KitPlatformPaths, 'application/json'>({
    baseUrl: url,
    headers: { authorization: `Bearer ${key}`, 'x-acting-user': DEFAULT_ACTING_USER },
  });
}

/** `host` as the kit reaches it: a wildcard address is reached on loopback. */
function reachableHost(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Makes the kit's platform key (every platform scope) through the admin socket, as an operator
 * makes one with `platform-key create`.
 */
async function createKitKey(socketPath: string): Promise<{ key: string; keyId: number }> {
  const argv = [
    'platform-key',
    'create',
    '--name',
    'testing-kit',
    '--scopes',
    ALL_PLATFORM_SCOPES.join(' '),
    '--json',
  ];
  const answer = await adminCall(socketPath, argv);
  const made = answerOf('platform-key create', { ...answer, json: parseJson(answer.stdout) });
  if (typeof made.key !== 'string' || typeof made.key_id !== 'number') {
    throw new Error(`platform-key create answered without a key: ${JSON.stringify(made.key_id)}`);
  }
  return { key: made.key, keyId: made.key_id };
}

/** Each handle's service address, for `globalSetup` to publish to the workers. */
const ADDRESSES = new WeakMap<IntegrationApi, ServiceAddress>();

export function addressOf(api: IntegrationApi): ServiceAddress {
  const address = ADDRESSES.get(api);
  if (!address) throw new Error('not a handle of the testing kit');
  return address;
}

/**
 * A handle on a running service. `owned`: the service is this handle's (its `stop()` stops it,
 * `reset()` empties every tenant); otherwise it is shared and the handle keeps to its tenants.
 */
export function handleOn(
  address: ServiceAddress,
  service: { owned: true; stop: () => Promise<void>; output: () => string } | { owned: false },
): IntegrationApi {
  const { baseUrl, socketPath, runDir } = address;
  const apiUrl = `${baseUrl}${API_PREFIX}`;
  const platform = address.platform;
  const platformClient = platform ? platformClientOf(platform.url, platform.key) : undefined;
  const platformOn = <T,>(value: T | undefined): T => {
    if (value === undefined) {
      throw new Error(
        'the platform API is off in this service (PLATFORM_API_PORT=off in its env): ' +
          'api.platform, platformUrl and platformKey need its listener',
      );
    }
    return value;
  };
  const receivers: WebhookReceiver[] = [];
  const tenants = new Set<number>();
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

  /** A write of the platform API as the kit (its key, `X-Acting-User: testing-kit`). */
  const platformWrite = async (path: string, body: object): Promise<Record<string, unknown>> => {
    const { url, key } = platformOn(platform);
    const res = await fetch(`${url}${PLATFORM_PREFIX}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'x-acting-user': DEFAULT_ACTING_USER,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const answer = parseJson(text);
    if (res.status !== 201 || !answer) {
      throw new Error(`POST ${PLATFORM_PREFIX}${path} failed: ${res.status} ${text}`);
    }
    return answer;
  };

  /** The tenant and its client from the platform API (unless it is off: then `fixture apply`). */
  const tenantAndClient = async (
    o: CreateTenantOptions,
  ): Promise<{ fixture: Record<string, unknown>; made?: Record<string, unknown> }> => {
    const name = o.name ?? `tenant ${randomBytes(4).toString('hex')}`;
    const plan = o.plan ?? 'enterprise';
    const clientBody = { name: 'testing-kit', scopes: o.scopes ?? ALL_SCOPES };
    if (!platform) return { fixture: { name, plan, clients: [clientBody] } };
    const tenant = await platformWrite('/tenants', { name, plan });
    const tenantId = tenant.tenant_id;
    if (typeof tenantId !== 'number') {
      throw new Error(`POST ${PLATFORM_PREFIX}/tenants answered no tenant_id: ${String(tenantId)}`);
    }
    tenants.add(tenantId);
    const client = await platformWrite(`/tenants/${tenantId}/clients`, clientBody);
    return {
      fixture: { tenant_id: tenantId },
      made: {
        tenant_id: tenantId,
        name: tenant.name ?? name,
        plan: tenant.plan ?? plan,
        clients: [{ scopes: clientBody.scopes, allowed_ips: [], ...client }],
      },
    };
  };

  /** The rest of `o` (projects, documents, PATs, webhooks) in one `fixture apply`. */
  const applyFixture = async (entry: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const file = join(runDir, `fixture-${randomBytes(6).toString('hex')}.json`);
    await writeFile(file, JSON.stringify({ tenants: [entry] }), { mode: 0o600 });
    try {
      const result = await cli('fixture', 'apply', '--file', file);
      const made = (result.json?.tenants as Array<Record<string, unknown>> | undefined)?.[0];
      if (result.exitCode !== 0 || !made) {
        throw new Error(
          `fixture apply failed (exit ${result.exitCode}): ${result.stdout}${result.stderr}`,
        );
      }
      return made;
    } finally {
      await rm(file, { force: true });
    }
  };

  const createTenant = async (o: CreateTenantOptions = {}): Promise<CreatedTenant> => {
    const { fixture, made: byPlatform } = await tenantAndClient(o);
    const rest = {
      projects: o.projects ?? [],
      pats: o.pats?.map((p) => ({ ...p, scopes: p.scopes ?? ALL_SCOPES })) ?? [],
      webhooks:
        o.webhooks?.map((w, i) => ({
          name: w.name ?? `webhook ${i + 1}`,
          endpoint_url: w.url,
          events: w.events ?? ['*'],
        })) ?? [],
    };
    const nothingMore = !rest.projects.length && !rest.pats.length && !rest.webhooks.length;
    const fromFixture =
      byPlatform && nothingMore ? { ...rest } : await applyFixture({ ...fixture, ...rest });
    const made = { ...fromFixture, ...byPlatform };
    const created = made as unknown as Omit<CreatedTenant, 'tenant' | 'token' | 'raw'> & {
      tenant_id: number;
      name: string;
      plan: string;
      clients: CreatedClient[];
    };
    tenants.add(created.tenant_id);
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
  };

  const reset = async (): Promise<{ ms: number }> => {
    const started = Date.now();
    for (const r of receivers) r.clear();
    if (service.owned || tenants.size) {
      const scope = service.owned ? [] : ['--tenants', [...tenants].join(',')];
      answerOf('testing reset', await cli('testing', 'reset', ...scope));
    }
    return { ms: Date.now() - started };
  };

  const emit = async <T extends SubscribableEventType>(
    type: T,
    data: EventData<T>,
    options: { tenant: number | CreatedTenant },
  ): Promise<{ event_id: string }> => {
    const tenant =
      typeof options.tenant === 'number' ? options.tenant : options.tenant.tenant.tenant_id;
    const answer = answerOf(
      `testing emit ${type}`,
      await cli(
        'testing',
        'emit',
        '--tenant',
        String(tenant),
        '--type',
        type,
        '--data',
        JSON.stringify(data),
      ),
    );
    return { event_id: String(answer.event_id) };
  };

  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await Promise.all(receivers.map((r) => r.close()));
      if (service.owned) await service.stop();
    })());

  const handle: IntegrationApi = {
    baseUrl,
    apiUrl,
    port: address.port,
    pid: address.pid,
    runDir,
    get platformUrl() {
      return platformOn(platform?.url);
    },
    get platformKey() {
      return platformOn(platform?.key);
    },
    get platform() {
      return platformOn(platformClient);
    },
    cli,
    createTenant,
    token,
    webhookReceiver: async () => {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    },
    reset,
    emit,
    output: () => (service.owned ? service.output() : ''),
    stop,
  };
  ADDRESSES.set(handle, address);
  return handle;
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
