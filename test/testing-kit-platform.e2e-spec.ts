import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// The kit's platform client (`api.platform`): its listener, its key, its headers, against the
// built package (dist/, built by `npm test`) and a real PostgreSQL.
jest.setTimeout(120_000);

type Kit = typeof import('../src/testing/index.cjs');
type Api = Awaited<ReturnType<Kit['startIntegrationApi']>>;
const kit = createRequire(import.meta.url)('../dist/src/testing/index.cjs') as Kit;

async function platformKeys(
  url: string,
): Promise<Array<{ name: string; scopes: string[]; revoked: boolean }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; scopes: string[]; revoked: boolean }>(
      'SELECT name, scopes, revoked_at IS NOT NULL AS revoked FROM platform_keys ORDER BY id',
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('testing kit: the platform client', () => {
  let database: TestDatabase;
  let api: Api;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await kit.startIntegrationApi({ databaseUrl: database.url, env: database.env });
  });
  afterAll(async () => {
    await api?.stop();
    await database?.drop();
  });

  it('starts the platform listener on a free loopback port, with a key of every platform scope', async () => {
    const { hostname, port, pathname } = new URL(api.platformUrl);
    expect(hostname).toBe('127.0.0.1');
    // not the default 3001: two services of one machine must not share it
    expect(Number(port)).not.toBe(3001);
    expect(Number(port)).not.toBe(api.port);
    expect(pathname).toBe('/');
    expect(api.platformKey).toMatch(/^gpk_/);
    const listed = await api.cli('platform-key', 'list');
    expect(listed.exitCode).toBe(0);
    expect(listed.json).toEqual([
      expect.objectContaining({
        name: 'testing-kit',
        scopes: [...kit.ALL_PLATFORM_SCOPES],
        revoked_at: null,
      }),
    ]);
    // the key is a live one there: refused without it, past the guard with it
    const route = `${api.platformUrl}/platform/v1/tenants`;
    const without = await fetch(route);
    expect(without.status).toBe(401);
    await without.arrayBuffer();
    const withKey = await fetch(route, { headers: { authorization: `Bearer ${api.platformKey}` } });
    expect(withKey.status).not.toBe(401);
    await withKey.arrayBuffer();
  });

  it('sends the key and X-Acting-User: testing-kit, which a call may override', async () => {
    const seen: Array<{ url: string; auth: string | null; actor: string | null }> = [];
    const spy = {
      onRequest({ request }: { request: Request }) {
        seen.push({
          url: request.url,
          auth: request.headers.get('authorization'),
          actor: request.headers.get('x-acting-user'),
        });
        return undefined;
      },
    };
    api.platform.use(spy);
    let tenantId: number;
    try {
      const listed = await api.platform.GET('/platform/v1/tenants', {
        params: { query: { limit: 1 } },
      });
      expect(listed.response.status).toBe(200);
      const asJane = await api.platform.GET('/platform/v1/tenants', {
        headers: { 'X-Acting-User': 'jane@acme' },
      });
      expect(asJane.response.status).toBe(200);
      // a typed write: the header the document requires is the kit's unless the call names one
      const made = await api.platform.POST('/platform/v1/tenants', {
        params: { header: { 'X-Acting-User': 'ann@acme' } },
        body: { name: 'Typed', plan: 'starter' },
      });
      expect(made.response.status).toBe(201);
      tenantId = made.data!.tenant_id;
      const read = await api.platform.GET('/platform/v1/tenants/{tenantId}', {
        params: { path: { tenantId } },
      });
      expect(read.data).toMatchObject({ tenant_id: tenantId, name: 'Typed', plan: 'starter' });
    } finally {
      api.platform.eject(spy);
    }
    const auth = `Bearer ${api.platformKey}`;
    const tenants = `${api.platformUrl}/platform/v1/tenants`;
    expect(seen).toEqual([
      { url: `${tenants}?limit=1`, auth, actor: kit.DEFAULT_ACTING_USER },
      { url: tenants, auth, actor: 'jane@acme' },
      { url: tenants, auth, actor: 'ann@acme' },
      { url: `${tenants}/${tenantId}`, auth, actor: kit.DEFAULT_ACTING_USER },
    ]);
    expect(kit.DEFAULT_ACTING_USER).toBe('testing-kit');
  });

  it('createTenant makes the tenant and its client through the platform API, as testing-kit', async () => {
    const receiver = await api.webhookReceiver();
    const acme = await api.createTenant({
      name: 'Acme',
      plan: 'professional',
      scopes: ['projects:read', 'webhooks:read'],
      projects: [{ name: 'ISO 27001', documents: [{ title: 'Policy', content: { v: 1 } }] }],
      webhooks: [{ url: receiver.url, events: ['document.checked_in'] }],
    });
    const tenantId = acme.tenant.tenant_id;
    expect(acme.tenant).toEqual({ tenant_id: tenantId, name: 'Acme', plan: 'professional' });
    expect(acme.client).toMatchObject({
      client_id: expect.stringMatching(/^gci_/),
      client_secret: expect.stringMatching(/^gcs_/),
      scopes: ['projects:read', 'webhooks:read'],
    });
    // the fixtures went to that same tenant: its token lists the project
    const res = await fetch(`${api.apiUrl}/projects`, {
      headers: { authorization: `Bearer ${acme.token}` },
    });
    expect(((await res.json()) as { data: Array<{ name: string }> }).data).toEqual([
      expect.objectContaining({ name: 'ISO 27001' }),
    ]);
    expect(acme.projects[0]!.documents[0]!.documentId).toEqual(expect.any(Number));
    expect(acme.webhooks).toHaveLength(1);
    // the platform API made the tenant and the client, in the kit's name
    const audited = async () => {
      const client = new pg.Client({ connectionString: database.directUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ action: string; credential_ref: string }>(
          `SELECT action, credential_ref, actor FROM audit_log
            WHERE tenant_id = $1 AND action IN ('tenant.create', 'client.create') ORDER BY id`,
          [tenantId],
        );
        return rows;
      } finally {
        await client.end();
      }
    };
    let rows = await audited();
    for (const until = Date.now() + 5_000; rows.length < 2 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await audited();
    }
    expect(rows).toEqual([
      { action: 'tenant.create', credential_ref: 'platform:testing-kit', actor: 'testing-kit' },
      { action: 'client.create', credential_ref: 'platform:testing-kit', actor: 'testing-kit' },
    ]);
  });

  it('fixture apply adds to an existing tenant named by tenant_id, and refuses what it cannot', async () => {
    const made = await api.cli('tenant', 'create', '--name', 'Existing', '--plan', 'starter');
    const tenantId = made.json!.tenant_id as number;
    const apply = async (entry: object) => {
      const file = join(api.runDir, `fixture-test-${Date.now()}.json`);
      writeFileSync(file, JSON.stringify({ tenants: [entry] }));
      return api.cli('fixture', 'apply', '--file', file);
    };
    const added = await apply({
      tenant_id: tenantId,
      clients: [{ name: 'reader', scopes: ['projects:read'] }],
      projects: [{ name: 'Added' }],
    });
    expect(added.exitCode).toBe(0);
    const entry = (added.json!.tenants as Array<Record<string, unknown>>)[0]!;
    // the tenant as it was: its name and plan untouched
    expect(entry).toMatchObject({ tenant_id: tenantId, name: 'Existing', plan: 'starter' });
    const listed = await api.cli('project', 'list', '--tenant', String(tenantId));
    expect((listed.json!.data as Array<{ name: string }>).map((p) => p.name)).toEqual(['Added']);
    const tenants = await api.cli('tenant', 'list');
    const named = (tenants.json!.data as Array<{ name: string }>).filter(
      (t) => t.name === 'Existing',
    );
    expect(named).toHaveLength(1);

    const unknown = await apply({ tenant_id: tenantId + 1000, projects: [{ name: 'Lost' }] });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.json).toEqual({
      error: { code: 'not_found', message: expect.stringMatching(/^tenants\[0\]: /) },
    });
    for (const bad of [
      { tenant_id: tenantId, name: 'Renamed' },
      { tenant_id: tenantId, plan: 'enterprise' },
      { tenant_id: 'one' },
      { tenant_id: 0 },
    ]) {
      const refused = await apply(bad);
      expect(refused.exitCode).toBe(2);
      expect(refused.json).toEqual({
        error: { code: 'usage', message: expect.stringMatching(/^tenants\[0\].*tenant_id/) },
      });
    }
    // nothing of the refused files was made
    const after = await api.cli('project', 'list', '--tenant', String(tenantId));
    expect((after.json!.data as unknown[]).length).toBe(1);
  });

  it("revokes its key when it stops a service on the caller's PostgreSQL", async () => {
    const other = await createTestDatabase();
    try {
      const second = await kit.startIntegrationApi({ databaseUrl: other.url, env: other.env });
      expect(await platformKeys(other.directUrl)).toEqual([
        { name: 'testing-kit', scopes: [...kit.ALL_PLATFORM_SCOPES], revoked: false },
      ]);
      await second.stop();
      expect(await platformKeys(other.directUrl)).toEqual([
        { name: 'testing-kit', scopes: [...kit.ALL_PLATFORM_SCOPES], revoked: true },
      ]);
    } finally {
      await other.drop();
    }
  });
});

describe('testing kit: with the platform listener off', () => {
  let database: TestDatabase;
  let api: Api;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await kit.startIntegrationApi({
      databaseUrl: database.url,
      env: { ...database.env, PLATFORM_API_PORT: 'off' },
    });
  });
  afterAll(async () => {
    await api?.stop();
    await database?.drop();
  });

  it('says so when the platform client is asked for, makes no key, and createTenant still works', async () => {
    expect(() => api.platform).toThrow(/platform API is off .*PLATFORM_API_PORT=off/);
    expect(() => api.platformUrl).toThrow(/PLATFORM_API_PORT=off/);
    expect(() => api.platformKey).toThrow(/PLATFORM_API_PORT=off/);
    expect(await platformKeys(database.directUrl)).toEqual([]);
    const acme = await api.createTenant({ name: 'Acme', projects: [{ name: 'P' }] });
    expect(acme.tenant.name).toBe('Acme');
    const res = await fetch(`${api.apiUrl}/projects`, {
      headers: { authorization: `Bearer ${acme.token}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Array<{ name: string }> }).data).toEqual([
      expect.objectContaining({ name: 'P' }),
    ]);
  });
});
