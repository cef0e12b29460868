import { rememberSecret } from './secrets.js';
import type { INestApplication } from '@nestjs/common';
import { CredentialsService } from '../../src/modules/auth/credentials.service.js';
import { SCOPES, type Scope } from '../../src/common/access/scopes.js';
import type { Plan } from '../../src/modules/tenancy/plans.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';

let counter = 0;

export async function createTenant(
  app: INestApplication,
  plan: Plan = 'enterprise',
): Promise<number> {
  counter += 1;
  const tenant = await app.get(TenancyService).create(`Tenant ${counter}`, plan);
  return tenant.tenant_id;
}

export interface TestClient {
  tenantId: number;
  id: number;
  clientId: string;
  clientSecret: string;
}

export async function createClient(
  app: INestApplication,
  tenantId: number,
  options: { scopes?: readonly Scope[]; allowedIps?: readonly string[]; name?: string } = {},
): Promise<TestClient> {
  const created = await app.get(CredentialsService).createClient({
    tenantId,
    name: options.name ?? 'test client',
    scopes: options.scopes ?? SCOPES,
    allowedIps: options.allowedIps ?? [],
  });
  rememberSecret(created.clientSecret);
  return { tenantId, ...created };
}

/** A bearer access token for a client, issued directly (the token endpoint has its own tests). */
export async function issueToken(
  app: INestApplication,
  client: TestClient,
  scopes: readonly Scope[] = SCOPES,
  ttlSeconds = 3600,
): Promise<string> {
  const credentials = app.get(CredentialsService);
  // fresh: a credential change made by the test a moment ago would refuse a cached verification
  const verified = await credentials.verifyClient(client.clientId, client.clientSecret, {
    fresh: true,
  });
  if (!verified) throw new Error('test client does not verify');
  const issued = await credentials.issueAccessToken(verified, scopes, ttlSeconds);
  if (!issued) throw new Error('a credential change raced the test token');
  const { token } = issued;
  rememberSecret(token);
  return token;
}

export interface TestCaller {
  tenantId: number;
  client: TestClient;
  token: string;
  /** `Authorization` header value. */
  auth: string;
}

/** A tenant with a client holding every scope (or the given ones) and a token for it. */
export async function createCaller(
  app: INestApplication,
  options: { plan?: Plan; scopes?: readonly Scope[]; tenantId?: number } = {},
): Promise<TestCaller> {
  const tenantId = options.tenantId ?? (await createTenant(app, options.plan ?? 'enterprise'));
  const client = await createClient(app, tenantId, { scopes: options.scopes ?? SCOPES });
  const token = await issueToken(app, client, options.scopes ?? SCOPES);
  return { tenantId, client, token, auth: `Bearer ${token}` };
}
