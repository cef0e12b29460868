import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { adminCall, answerOf } from './admin-socket.cjs';
import { parseJsonObject } from './json-object.cjs';
import type { EventData, SubscribableEventType } from './events.cjs';
import {
  API_PREFIX,
  type CliResult,
  type CreatedClient,
  type CreatedTenant,
  type CreateTenantOptions,
  DEFAULT_ACTING_USER,
  type IntegrationApi,
  type KitPlatformPaths,
  PLATFORM_PREFIX,
  type PlatformClient,
  type ServiceAddress,
} from './kit-types.cjs';
import { startReceiver, type WebhookReceiver } from './receiver.cjs';
import { ALL_SCOPES } from './scopes.cjs';

function platformClientOf(url: string, key: string): PlatformClient {
  return createClient<KitPlatformPaths, 'application/json'>({
    baseUrl: url,
    headers: { authorization: `Bearer ${key}`, 'x-acting-user': DEFAULT_ACTING_USER },
  });
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
    return { ...answer, json: parseJsonObject(answer.stdout) };
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
    const answer = parseJsonObject(text);
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
