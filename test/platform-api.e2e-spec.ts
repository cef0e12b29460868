import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { startTestApp, type TestApp } from './support/app.js';
import { runCli } from './support/cli.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';

interface Document {
  info: { title: string; version: string };
  paths: Record<string, Record<string, { security?: unknown[] }>>;
}

/** Every operation of a document, its path parameters filled with 1. */
function operations(doc: Document): Array<{ method: string; path: string }> {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{\w+\}/g, '1'),
    })),
  );
}

describe('platform API: its own listener, keys and document', () => {
  let t: TestApp;
  let key: TestPlatformKey;
  let tenant: TestCaller;
  let integrationDoc: Document;
  let platformDoc: Document;

  beforeAll(async () => {
    t = await startTestApp();
    key = await createPlatformKey(t.app);
    tenant = await createCaller(t.app);
    integrationDoc = (await call(t.baseUrl, 'GET', '/openapi.json')).body as Document;
    platformDoc = (await platformCall(t, 'GET', '/openapi.json')).body as Document;
  });
  afterAll(() => t?.close());

  it('serves its own OpenAPI document and Swagger UI under /platform/v1', async () => {
    expect(platformDoc.info).toEqual(expect.objectContaining({ title: 'GRC Platform API' }));
    expect(platformDoc.info.version).toBe('1.0.0');
    const ui = await platformCall(t, 'GET', '/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger-ui');
    // not the integration document, and no integration path in it
    expect(Object.keys(platformDoc.paths).filter((p) => p.startsWith('/api/'))).toEqual([]);
    expect(Object.keys(integrationDoc.paths).filter((p) => p.startsWith('/platform/'))).toEqual([]);
  });

  it('answers no integration route on the platform port (404), whatever the credential', async () => {
    for (const { method, path } of operations(integrationDoc)) {
      for (const auth of [undefined, tenant.auth, key.auth]) {
        const res = await call(t.platformUrl, method, `${t.platformUrl}${path}`, { auth });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
    }
    for (const path of ['/api/v1/docs', '/api/v1/openapi.json', '/health/live']) {
      expect((await call(t.platformUrl, 'GET', `${t.platformUrl}${path}`)).status).toBe(404);
    }
  });

  it('answers /platform/... on the integration port as an unknown route: 401, 404 with a token', async () => {
    const paths = [
      ...operations(platformDoc),
      { method: 'GET', path: '/platform/v1/tenants' },
      { method: 'GET', path: '/platform/v1/openapi.json' },
      { method: 'GET', path: '/platform/v1/docs' },
    ];
    for (const { method, path } of paths) {
      const anonymous = await call(t.baseUrl, method, `${t.baseUrl}${path}`);
      expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
      const platformKey = await call(t.baseUrl, method, `${t.baseUrl}${path}`, { auth: key.auth });
      expect({ path, status: platformKey.status }).toEqual({ path, status: 401 });
      // a tenant's valid token meets the integration API's catch-all: 404, never a platform route
      const withToken = await call(t.baseUrl, method, `${t.baseUrl}${path}`, {
        auth: tenant.auth,
      });
      expect({ path, status: withToken.status }).toEqual({ path, status: 404 });
    }
  });

  it('refuses a platform key on the integration API and a tenant credential on the platform API', async () => {
    const onIntegration = await call(t.baseUrl, 'GET', '/projects', { auth: key.auth });
    expect(onIntegration.status).toBe(401);
    expect(onIntegration.body.code).toBe('invalid_token');
    const onPlatform = await platformCall(t, 'GET', '/tenants', { auth: tenant.auth });
    expect(onPlatform.status).toBe(401);
    expect(onPlatform.body.code).toBe('invalid_token');
    expect(onPlatform.headers.get('www-authenticate')).toContain('realm="platform"');
    const none = await platformCall(t, 'GET', '/tenants');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthenticated');
    const basic = await platformCall(t, 'GET', '/tenants', { auth: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    // well-formed but never made (checksum right): unknown
    const made = await createPlatformKey(t.app, ['platform:audit'], 'to revoke');
    const revoke = await runCli(t, 'platform-key', 'revoke', '--key', String(made.keyId));
    expect(revoke.code).toBe(0);
    expect(revoke.out.revoked_at).toEqual(expect.any(String));
    const revoked = await platformCall(t, 'GET', '/openapi.json', { auth: made.auth });
    expect(revoked.status).toBe(200); // the document is public
    const refused = await platformCall(t, 'GET', '/tenants', { auth: made.auth });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_token');
  });

  it('serves /metrics on the platform listener, outside the prefix, without a credential', async () => {
    const res = await platformCall(t, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
  });

  it('makes, lists and revokes keys with the CLI; a key is shown once and never listed', async () => {
    const created = await runCli(
      t,
      'platform-key',
      'create',
      '--name',
      'admin-ui',
      '--scopes',
      'platform:tenants platform:credentials',
    );
    expect(created.code).toBe(0);
    expect(created.out).toEqual(
      expect.objectContaining({
        key_id: expect.any(Number),
        name: 'admin-ui',
        scopes: ['platform:tenants', 'platform:credentials'],
        key: expect.stringMatching(/^gpk_[0-9A-Za-z]{49}$/),
      }),
    );
    const listed = await runCli(t, 'platform-key', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(created.out.key);
    expect(listed.out).toEqual(
      expect.arrayContaining([expect.objectContaining({ key_id: created.out.key_id })]),
    );
    const bad = await runCli(
      t,
      'platform-key',
      'create',
      '--name',
      'x',
      '--scopes',
      'projects:read',
    );
    expect(bad.code).toBe(2);
    expect(bad.stdout + bad.stderr).toContain('platform:tenants');
    // the key authenticates
    const ok = await platformCall(t, 'GET', '/no-such-route', {
      auth: `Bearer ${String(created.out.key)}`,
    });
    expect(ok.status).toBe(404);
  });

  it('reads across tenants only read-only and alone', async () => {
    const other = await createCaller(t.app);
    const tx = t.app.get(TenantTransactions);
    const tenants = await tx.readAcrossTenants(async () => {
      const rows: Array<{ tenant_id: number }> = await tx.manager.query(
        'SELECT DISTINCT tenant_id FROM api_clients',
      );
      return rows.map((r) => r.tenant_id);
    });
    expect(tenants).toEqual(expect.arrayContaining([tenant.tenantId, other.tenantId]));
    await expect(
      tx.readAcrossTenants(() =>
        tx.manager.query(`UPDATE api_clients SET name = 'x' WHERE tenant_id = $1`, [
          other.tenantId,
        ]),
      ),
    ).rejects.toThrow(/read-only/);
    await expect(
      tx.readAcrossTenants(() => tx.run(tenant.tenantId, () => Promise.resolve(1))),
    ).rejects.toThrow(/cross-tenant read/);
    await expect(
      tx.run(tenant.tenantId, () => tx.readAcrossTenants(() => Promise.resolve(1))),
    ).rejects.toThrow(/cross-tenant read/);
    // the role itself can only read: even outside a read-only transaction it writes nothing
    const db = t.app.get(DataSource);
    await expect(
      db.transaction(async (m) => {
        await m.query('SET LOCAL ROLE grc_platform');
        await m.query(`UPDATE api_clients SET name = 'x' WHERE tenant_id = $1`, [other.tenantId]);
      }),
    ).rejects.toThrow(/permission denied/);
  });
});

describe('platform API off', () => {
  it('has no listener when PLATFORM_API_PORT is off', async () => {
    const t = await startTestApp({ PLATFORM_API_PORT: 'off' });
    try {
      expect(t.platformApp).toBeUndefined();
      expect(t.platformUrl).toBe('');
    } finally {
      await t.close();
    }
  });
});
