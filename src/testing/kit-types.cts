import type { Client } from 'openapi-fetch';
import type { paths as PlatformPaths } from 'grc-integration-api/platform-api-types';
import type { EventData, SubscribableEventType } from './events.cjs';
import type { WebhookReceiver } from './receiver.cjs';

// The kit's public types (what `startIntegrationApi` takes and answers) and the prefixes its
// calls use: the handle (handle.cts) and the start (service.cts) share them.

export const API_PREFIX = '/api/v1';
/** The platform document's paths carry it (`/platform/v1/tenants`). */
export const PLATFORM_PREFIX = '/platform/v1';
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
