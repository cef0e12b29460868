import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { basicAuth } from './support/auth-factories.js';
import { createCaller, createTenant, type TestCaller } from './support/factories.js';
import { call, type ApiResponse } from './support/http.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';
import { createDocument, createProject } from './support/read-factories.js';

const ACTOR = 'jane@platform.example';
const UNKNOWN_CLIENT = `gci_${'A'.repeat(49)}`;

interface AuditLine {
  tenant_id: number | null;
  credential_ref: string | null;
  actor: string | null;
  action: string;
  target: string | null;
  outcome: string;
  detail: string | null;
}

/**
 * The platform API's tenant and credential routes (`/platform/v1/tenants…`, `/clients/…`,
 * `/pats/…`): each route and refusal, the rules shared with the CLI (plans, entitlements,
 * scopes, allowlists), secret rotation, and the audit lines with the acting person.
 */
describe('platform API: tenants and credentials', () => {
  let t: TestApp;
  let key: TestPlatformKey;
  let tenantsKey: TestPlatformKey;
  let credentialsKey: TestPlatformKey;
  let caller: TestCaller;

  beforeAll(async () => {
    t = await startTestApp();
    key = await createPlatformKey(t.app, ['platform:tenants', 'platform:credentials'], 'console');
    tenantsKey = await createPlatformKey(t.app, ['platform:tenants'], 'tenants only');
    credentialsKey = await createPlatformKey(t.app, ['platform:credentials'], 'credentials only');
    caller = await createCaller(t.app);
  });
  afterAll(() => t?.close());

  const as = (k: TestPlatformKey, actor: string | undefined = ACTOR) => ({ auth: k.auth, actor });
  const get = (path: string, k = key) => platformCall(t, 'GET', path, { auth: k.auth });
  const post = (path: string, body?: unknown, k = key) =>
    platformCall(t, 'POST', path, { ...as(k), body });
  const patch = (path: string, body: unknown, k = key) =>
    platformCall(t, 'PATCH', path, { ...as(k), body });

  function expectProblem(res: ApiResponse, status: number, code: string): void {
    expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  }

  async function newTenant(plan = 'enterprise', name = 'Acme'): Promise<number> {
    const res = await post('/tenants', { name, plan });
    expect(res.status).toBe(201);
    return res.body.tenant_id as number;
  }

  async function tokenFor(clientId: string, secret: string): Promise<ApiResponse> {
    return call(t.baseUrl, 'POST', '/oauth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(clientId, secret),
      },
    });
  }

  async function auditLines(where: string, params: unknown[]): Promise<AuditLine[]> {
    await t.app.get(AuditService).drain();
    return t.app
      .get(DataSource)
      .query(
        `SELECT tenant_id, credential_ref, actor, action, target, outcome, detail FROM audit_log WHERE ${where} ORDER BY id`,
        params,
      );
  }

  /** Every route of this part of the platform API, with a body each write would accept. */
  const routes = (tenantId: number, clientId: string, patId: number) => [
    { method: 'POST', path: '/tenants', scope: 'tenants', body: { name: 'x', plan: 'starter' } },
    { method: 'GET', path: '/tenants', scope: 'tenants' },
    { method: 'GET', path: `/tenants/${tenantId}`, scope: 'tenants' },
    { method: 'PATCH', path: `/tenants/${tenantId}`, scope: 'tenants', body: { name: 'y' } },
    {
      method: 'POST',
      path: `/tenants/${tenantId}/clients`,
      scope: 'credentials',
      body: { name: 'c', scopes: ['projects:read'] },
    },
    { method: 'GET', path: `/tenants/${tenantId}/clients`, scope: 'credentials' },
    { method: 'POST', path: `/clients/${clientId}/disable`, scope: 'credentials' },
    { method: 'POST', path: `/clients/${clientId}/secret/rotate`, scope: 'credentials', body: {} },
    {
      method: 'POST',
      path: `/tenants/${tenantId}/pats`,
      scope: 'credentials',
      body: { name: 'p', scopes: ['projects:read'] },
    },
    { method: 'GET', path: `/tenants/${tenantId}/pats`, scope: 'credentials' },
    { method: 'POST', path: `/pats/${patId}/revoke`, scope: 'credentials' },
  ];

  describe('refusals common to every route', () => {
    let table: ReturnType<typeof routes>;
    let clientId: string;
    let patId: number;
    let tenantId: number;

    beforeAll(async () => {
      tenantId = await newTenant();
      clientId = (
        await post(`/tenants/${tenantId}/clients`, { name: 'erp', scopes: ['projects:read'] })
      ).body.client_id as string;
      patId = (await post(`/tenants/${tenantId}/pats`, { name: 'p', scopes: ['projects:read'] }))
        .body.pat_id as number;
      table = routes(tenantId, clientId, patId);
    });

    it('no key: 401 unauthenticated; a tenant credential: 401 invalid_token', async () => {
      const pat = (
        await post(`/tenants/${tenantId}/pats`, { name: 'q', scopes: ['projects:read'] })
      ).body.token as string;
      for (const r of table) {
        const none = await platformCall(t, r.method, r.path, { actor: ACTOR, body: r.body });
        expect({ ...r, status: none.status, code: none.body?.code }).toEqual({
          ...r,
          status: 401,
          code: 'unauthenticated',
        });
        for (const auth of [caller.auth, `Bearer ${pat}`]) {
          const tenantToken = await platformCall(t, r.method, r.path, {
            auth,
            actor: ACTOR,
            body: r.body,
          });
          expect({ ...r, status: tenantToken.status, code: tenantToken.body?.code }).toEqual({
            ...r,
            status: 401,
            code: 'invalid_token',
          });
        }
      }
      // and the platform key is nothing to the integration API
      expectProblem(
        await call(t.baseUrl, 'GET', '/projects', { auth: key.auth }),
        401,
        'invalid_token',
      );
    });

    it('a key without the route group scope: 403 insufficient_scope', async () => {
      for (const r of table) {
        const wrong = r.scope === 'tenants' ? credentialsKey : tenantsKey;
        const res = await platformCall(t, r.method, r.path, { ...as(wrong), body: r.body });
        expect({ ...r, status: res.status, code: res.body?.code, scope: res.body?.scope }).toEqual({
          ...r,
          status: 403,
          code: 'insufficient_scope',
          scope: `platform:${r.scope}`,
        });
      }
    });

    it('a write without X-Acting-User (or an empty one): 400 validation_failed, nothing done', async () => {
      const before = await get(`/tenants/${tenantId}`);
      for (const r of table.filter((x) => x.method !== 'GET')) {
        for (const actor of [undefined, '', ' ', 'x'.repeat(201)]) {
          const res = await platformCall(t, r.method, r.path, {
            auth: key.auth,
            actor,
            body: r.body,
          });
          expect({ ...r, actor, status: res.status, field: res.body?.errors?.[0]?.field }).toEqual({
            ...r,
            actor,
            status: 400,
            field: 'X-Acting-User',
          });
        }
      }
      const after = await get(`/tenants/${tenantId}`);
      expect(after.body).toEqual(before.body);
      const clients = await get(`/tenants/${tenantId}/clients`);
      expect(clients.body.data).toEqual([
        expect.objectContaining({ client_id: clientId, enabled: true }),
      ]);
    });
  });

  describe('tenants', () => {
    it('POST /tenants makes a tenant on a plan: 201 with its detail', async () => {
      const res = await post('/tenants', { name: '  Globex  ', plan: 'professional' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        tenant_id: expect.any(Number),
        name: 'Globex',
        plan: 'professional',
        entitlements: ['api.locks', 'api.read', 'api.revisions', 'auth.ip_allowlist'],
        overrides: [],
        created_at: expect.any(String),
        counts: {
          clients: 0,
          clients_enabled: 0,
          pats: 0,
          pats_active: 0,
          projects: 0,
          documents: 0,
        },
      });
    });

    it('POST /tenants refuses a bad plan, a blank or long name, an unknown field: 400', async () => {
      for (const body of [
        { name: 'x', plan: 'platinum' },
        { name: 'x' },
        { name: ' ', plan: 'starter' },
        { name: 'x'.repeat(201), plan: 'starter' },
        { name: 'x', plan: 'starter', entitlements: ['auth.pat'] },
        { name: 7, plan: 'starter' },
      ]) {
        expectProblem(await post('/tenants', body), 400, 'validation_failed');
      }
    });

    it('GET /tenants pages every tenant oldest first (default 100, limit 1..1000)', async () => {
      for (let i = 0; i < 3; i++) await createTenant(t.app, 'starter');
      const whole = await get('/tenants');
      expect(whole.status).toBe(200);
      expect(Object.keys(whole.body).sort()).toEqual(['data', 'next_cursor']);
      const ids = whole.body.data.map((x: { tenant_id: number }) => x.tenant_id);
      expect(ids.length).toBeGreaterThan(3);
      expect([...ids].sort((a: number, b: number) => a - b)).toEqual(ids);
      expect(whole.body.next_cursor).toBeNull();
      const walked: number[] = [];
      let path = '/tenants?limit=2';
      for (;;) {
        const page = await get(path);
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        walked.push(...page.body.data.map((x: { tenant_id: number }) => x.tenant_id));
        if (!page.body.next_cursor) break;
        path = `/tenants?limit=2&cursor=${page.body.next_cursor as string}`;
      }
      expect(walked).toEqual(ids);
      for (const q of ['limit=0', 'limit=1001', 'limit=x', 'cursor=abc', 'sort=name']) {
        expectProblem(await get(`/tenants?${q}`), 400, 'validation_failed');
      }
    });

    it('GET /tenants/{tenantId}: plan, entitlements, overrides and counts; 404 unknown', async () => {
      const tenantId = await newTenant('starter');
      const projectId = await createProject(t.app, tenantId);
      await createDocument(t.app, tenantId, projectId);
      await post(`/tenants/${tenantId}/clients`, { name: 'erp', scopes: ['projects:read'] });
      const res = await get(`/tenants/${tenantId}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        tenant_id: tenantId,
        plan: 'starter',
        entitlements: ['api.read'],
        overrides: [],
        counts: {
          clients: 1,
          clients_enabled: 1,
          pats: 0,
          pats_active: 0,
          projects: 1,
          documents: 1,
        },
      });
      expectProblem(await get('/tenants/999999'), 404, 'not_found');
      expectProblem(await get('/tenants/0'), 400, 'validation_failed');
      expectProblem(await get('/tenants/abc'), 400, 'validation_failed');
    });

    it('PATCH changes name, plan and overrides together, at once for its credentials', async () => {
      const tenantId = await newTenant('enterprise');
      const tenantCaller = await createCaller(t.app, { tenantId });
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: tenantCaller.auth })).status).toBe(
        200,
      );
      const res = await patch(`/tenants/${tenantId}`, {
        name: 'Acme EU',
        plan: 'professional',
        entitlements: { add: ['auth.pat'], remove: ['api.read'] },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        tenant_id: tenantId,
        name: 'Acme EU',
        plan: 'professional',
        entitlements: ['api.locks', 'api.revisions', 'auth.ip_allowlist', 'auth.pat'],
        overrides: [
          { entitlement: 'api.read', granted: false },
          { entitlement: 'auth.pat', granted: true },
        ],
      });
      // the tenant's own token is refused the entitlement from its next request
      expectProblem(
        await call(t.baseUrl, 'GET', '/projects', { auth: tenantCaller.auth }),
        403,
        'entitlement_required',
      );
      const reset = await patch(`/tenants/${tenantId}`, { entitlements: { reset: ['api.read'] } });
      expect(reset.body.overrides).toEqual([{ entitlement: 'auth.pat', granted: true }]);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: tenantCaller.auth })).status).toBe(
        200,
      );
      expect((await patch(`/tenants/${tenantId}`, {})).body).toEqual(reset.body);
    });

    it('PATCH refuses bad plans, entitlements and fields (400) and unknown tenants (404); nothing changes', async () => {
      const tenantId = await newTenant('starter');
      const before = (await get(`/tenants/${tenantId}`)).body;
      for (const body of [
        { plan: 'platinum' },
        { plan: null },
        { name: '' },
        { entitlements: { add: ['api.fly'] } },
        { entitlements: { add: ['auth.pat'], reset: ['auth.pat'] } },
        { entitlements: { add: ['auth.pat', 'auth.pat'] } },
        { entitlements: { grant: ['auth.pat'] } },
        { entitlements: ['auth.pat'] },
        { plan: 'enterprise', scopes: ['projects:read'] },
      ]) {
        const res = await patch(`/tenants/${tenantId}`, body);
        expect({ body, status: res.status, code: res.body?.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
      }
      expect((await get(`/tenants/${tenantId}`)).body).toEqual(before);
      expectProblem(await patch('/tenants/999999', { plan: 'enterprise' }), 404, 'not_found');
    });
  });

  describe('clients', () => {
    it('POST makes a client: 201, its secret once; it gets tokens; lists never show a secret', async () => {
      const tenantId = await newTenant('professional');
      const res = await post(`/tenants/${tenantId}/clients`, {
        name: 'erp',
        scopes: ['projects:read', 'documents:read'],
        allowed_ips: ['127.0.0.0/8', '::1/128'],
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toEqual({
        client_id: expect.stringMatching(/^gci_[0-9A-Za-z]{49}$/),
        client_secret: expect.stringMatching(/^gcs_[0-9A-Za-z]{49}$/),
        scopes: ['projects:read', 'documents:read'],
        allowed_ips: ['127.0.0.0/8', '::1/128'],
      });
      expect((await tokenFor(res.body.client_id, res.body.client_secret)).status).toBe(200);

      for (let i = 0; i < 2; i++) {
        await post(`/tenants/${tenantId}/clients`, { name: `c${i}`, scopes: ['projects:read'] });
      }
      const page = await get(`/tenants/${tenantId}/clients?limit=2`);
      expect(page.status).toBe(200);
      expect(page.body.data[0]).toEqual({
        client_id: res.body.client_id,
        name: 'erp',
        scopes: ['projects:read', 'documents:read'],
        allowed_ips: ['127.0.0.0/8', '::1/128'],
        enabled: true,
        created_at: expect.any(String),
      });
      const rest = await get(
        `/tenants/${tenantId}/clients?cursor=${page.body.next_cursor as string}`,
      );
      expect(rest.body.data.map((c: { name: string }) => c.name)).toEqual(['c1']);
      expect(rest.body.next_cursor).toBeNull();
      expect(page.text + rest.text).not.toMatch(/gcs_|secret/);
      // a cursor of another tenant's list is refused
      const other = await newTenant();
      expectProblem(
        await get(`/tenants/${other}/clients?cursor=${page.body.next_cursor as string}`),
        400,
        'validation_failed',
      );
    });

    it('POST refuses bad scopes, names, CIDRs (400), an allowlist without auth.ip_allowlist (403), an unknown tenant (404)', async () => {
      const starter = await newTenant('starter');
      for (const body of [
        { name: 'erp', scopes: [] },
        { name: 'erp', scopes: ['projects:write'] },
        { name: 'erp', scopes: 'projects:read' },
        { name: 'erp', scopes: ['projects:read', 'projects:read'] },
        { name: ' ', scopes: ['projects:read'] },
        { name: 'erp' },
        { name: 'erp', scopes: ['projects:read'], allowed_ips: ['10.0.0.300/8'] },
        { name: 'erp', scopes: ['projects:read'], allowed_ips: '10.0.0.0/8' },
        { name: 'erp', scopes: ['projects:read'], client_secret: 'gcs_mine' },
      ]) {
        const res = await post(`/tenants/${starter}/clients`, body);
        expect({ body, status: res.status, code: res.body?.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
      }
      const allowlist = await post(`/tenants/${starter}/clients`, {
        name: 'erp',
        scopes: ['projects:read'],
        allowed_ips: ['10.0.0.0/8'],
      });
      expectProblem(allowlist, 403, 'entitlement_required');
      expect(allowlist.body.entitlement).toBe('auth.ip_allowlist');
      expect((await get(`/tenants/${starter}/clients`)).body.data).toEqual([]);
      expectProblem(
        await post('/tenants/999999/clients', { name: 'erp', scopes: ['projects:read'] }),
        404,
        'not_found',
      );
      expectProblem(await get('/tenants/999999/clients'), 404, 'not_found');
    });

    it('disable: at once, with the tenant it belonged to; 404 unknown, 400 not a client id', async () => {
      const tenantId = await newTenant();
      const made = (
        await post(`/tenants/${tenantId}/clients`, { name: 'erp', scopes: ['projects:read'] })
      ).body;
      const token = (await tokenFor(made.client_id, made.client_secret)).body
        .access_token as string;
      const res = await post(`/clients/${made.client_id as string}/disable`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tenant_id: tenantId, client_id: made.client_id, enabled: false });
      expect((await tokenFor(made.client_id, made.client_secret)).status).toBe(401);
      expectProblem(
        await call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${token}` }),
        401,
        'invalid_token',
      );
      expectProblem(await post(`/clients/${UNKNOWN_CLIENT}/disable`), 404, 'not_found');
      expectProblem(await post('/clients/gci_short/disable'), 400, 'validation_failed');
      expectProblem(
        await post(`/clients/${made.client_id as string}/disable`, { now: true }),
        400,
        'validation_failed',
      );
    });

    it('rotate: a new secret once; the old one refused at once; tokens live on unless revoke_tokens', async () => {
      const tenantId = await newTenant();
      const made = (
        await post(`/tenants/${tenantId}/clients`, { name: 'erp', scopes: ['projects:read'] })
      ).body;
      const clientId = made.client_id as string;
      // the old secret's verification is cached before the rotation
      const first = (await tokenFor(clientId, made.client_secret)).body.access_token as string;
      expect((await tokenFor(clientId, made.client_secret)).status).toBe(200);

      const rotated = await post(`/clients/${clientId}/secret/rotate`);
      expect(rotated.status).toBe(200);
      expect(rotated.headers.get('cache-control')).toBe('no-store');
      expect(rotated.body).toEqual({
        tenant_id: tenantId,
        client_id: clientId,
        client_secret: expect.stringMatching(/^gcs_[0-9A-Za-z]{49}$/),
        tokens_revoked: 0,
      });
      const old = await tokenFor(clientId, made.client_secret);
      expect({ status: old.status, error: old.body.error }).toEqual({
        status: 401,
        error: 'invalid_client',
      });
      const second = (await tokenFor(clientId, rotated.body.client_secret)).body
        .access_token as string;
      expect(second).toEqual(expect.any(String));
      const use = (token: string) =>
        call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${token}` });
      expect((await use(first)).status).toBe(200);
      expect((await use(second)).status).toBe(200);

      const again = await post(`/clients/${clientId}/secret/rotate`, { revoke_tokens: true });
      expect(again.status).toBe(200);
      expect(again.body.tokens_revoked).toBe(3);
      expectProblem(await use(first), 401, 'invalid_token');
      expectProblem(await use(second), 401, 'invalid_token');
      expect((await tokenFor(clientId, rotated.body.client_secret)).status).toBe(401);
      expect((await tokenFor(clientId, again.body.client_secret)).status).toBe(200);

      for (const body of [{ revoke_tokens: 'yes' }, { revoke_tokens: null }, { grace: 1 }]) {
        expectProblem(
          await post(`/clients/${clientId}/secret/rotate`, body),
          400,
          'validation_failed',
        );
      }
      await post(`/clients/${clientId}/disable`);
      expectProblem(await post(`/clients/${clientId}/secret/rotate`), 409, 'client_disabled');
      expectProblem(await post(`/clients/${UNKNOWN_CLIENT}/secret/rotate`), 404, 'not_found');
    });
  });

  describe('personal access tokens', () => {
    it('POST makes a PAT: 201, its token once; it works as a bearer; lists never show it', async () => {
      const tenantId = await newTenant('enterprise');
      const res = await post(`/tenants/${tenantId}/pats`, {
        name: 'portal',
        scopes: ['projects:read'],
        expires_in_days: 30,
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toEqual({
        pat_id: expect.any(Number),
        token: expect.stringMatching(/^gpat_[0-9A-Za-z]{49}$/),
        expires_at: expect.any(String),
      });
      const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThanOrEqual(30);
      const auth = `Bearer ${res.body.token as string}`;
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);

      const defaulted = await post(`/tenants/${tenantId}/pats`, {
        name: 'ci',
        scopes: ['documents:read'],
      });
      const defaultDays = (Date.parse(defaulted.body.expires_at) - Date.now()) / 86_400_000;
      expect(Math.round(defaultDays)).toBe(90);

      const list = await get(`/tenants/${tenantId}/pats?limit=1`);
      expect(list.body.data).toEqual([
        {
          pat_id: res.body.pat_id,
          name: 'portal',
          scopes: ['projects:read'],
          allowed_ips: [],
          expires_at: res.body.expires_at,
          revoked_at: null,
          created_at: expect.any(String),
        },
      ]);
      const rest = await get(`/tenants/${tenantId}/pats?cursor=${list.body.next_cursor as string}`);
      expect(rest.body.data.map((p: { name: string }) => p.name)).toEqual(['ci']);
      expect(list.text + rest.text).not.toMatch(/gpat_|token/);
    });

    it('POST refuses a tenant without auth.pat or auth.ip_allowlist (403), bad input (400), unknown tenant (404)', async () => {
      const starter = await newTenant('starter');
      const noPat = await post(`/tenants/${starter}/pats`, {
        name: 'p',
        scopes: ['projects:read'],
      });
      expectProblem(noPat, 403, 'entitlement_required');
      expect(noPat.body.entitlement).toBe('auth.pat');
      const starterWithPat = await newTenant('starter');
      await patch(`/tenants/${starterWithPat}`, { entitlements: { add: ['auth.pat'] } });
      const noAllowlist = await post(`/tenants/${starterWithPat}/pats`, {
        name: 'p',
        scopes: ['projects:read'],
        allowed_ips: ['10.0.0.0/8'],
      });
      expectProblem(noAllowlist, 403, 'entitlement_required');
      expect(noAllowlist.body.entitlement).toBe('auth.ip_allowlist');
      expect(
        (await post(`/tenants/${starterWithPat}/pats`, { name: 'p', scopes: ['projects:read'] }))
          .status,
      ).toBe(201);
      for (const body of [
        { name: 'p', scopes: ['projects:read'], expires_in_days: 0 },
        { name: 'p', scopes: ['projects:read'], expires_in_days: 366 },
        { name: 'p', scopes: ['projects:read'], expires_in_days: 1.5 },
        { name: 'p', scopes: ['nope'] },
        { name: 'p', scopes: ['projects:read'], token: 'gpat_mine' },
      ]) {
        expectProblem(
          await post(`/tenants/${starterWithPat}/pats`, body),
          400,
          'validation_failed',
        );
      }
      expectProblem(
        await post('/tenants/999999/pats', { name: 'p', scopes: ['projects:read'] }),
        404,
        'not_found',
      );
      expectProblem(await get('/tenants/999999/pats'), 404, 'not_found');
    });

    it('revoke: at once, with its tenant; again keeps the first time; 404 unknown', async () => {
      const tenantId = await newTenant();
      const made = (
        await post(`/tenants/${tenantId}/pats`, { name: 'p', scopes: ['projects:read'] })
      ).body;
      const auth = `Bearer ${made.token as string}`;
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
      const res = await post(`/pats/${made.pat_id as number}/revoke`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        tenant_id: tenantId,
        pat_id: made.pat_id,
        revoked_at: expect.any(String),
      });
      expectProblem(await call(t.baseUrl, 'GET', '/projects', { auth }), 401, 'invalid_token');
      const again = await post(`/pats/${made.pat_id as number}/revoke`);
      expect(again.body.revoked_at).toBe(res.body.revoked_at);
      expectProblem(await post('/pats/999999/revoke'), 404, 'not_found');
      expectProblem(await post('/pats/x/revoke'), 400, 'validation_failed');
    });
  });

  describe('audit', () => {
    it("records each write with the acting person, the key's name and the right tenant; never a secret", async () => {
      const tenantId = await newTenant('enterprise', 'Audited');
      await patch(`/tenants/${tenantId}`, { name: 'Audited AG' });
      const client = (
        await post(`/tenants/${tenantId}/clients`, { name: 'erp', scopes: ['projects:read'] })
      ).body;
      const rotated = (await post(`/clients/${client.client_id as string}/secret/rotate`)).body;
      await post(`/clients/${client.client_id as string}/disable`);
      // refused after the look-up: still the client's tenant
      await post(`/clients/${client.client_id as string}/secret/rotate`);
      await post(`/clients/${client.client_id as string}/secret/rotate`, { revoke_tokens: 1 });
      const pat = (
        await platformCall(t, 'POST', `/tenants/${tenantId}/pats`, {
          ...as(key, 'ops@platform.example'),
          body: { name: 'p', scopes: ['projects:read'] },
        })
      ).body;
      await post(`/pats/${pat.pat_id as number}/revoke`);
      await post(`/tenants/${tenantId}/clients`, {
        name: 'erp',
        scopes: ['projects:read'],
        allowed_ips: ['nope'],
      });
      // an unknown tenant's refusal is recorded too, with no tenant (and other lines kept)
      await patch('/tenants/999998', { plan: 'starter' });

      const lines = await auditLines(
        `credential_ref = 'platform:console' AND (tenant_id = $1 OR target = 'tenant:999998')`,
        [tenantId],
      );
      const cid = client.client_id as string;
      expect(lines).toEqual([
        expect.objectContaining({
          action: 'tenant.create',
          target: `tenant:${tenantId}`,
          outcome: 'success',
        }),
        expect.objectContaining({
          action: 'tenant.update',
          target: `tenant:${tenantId}`,
          outcome: 'success',
        }),
        expect.objectContaining({
          action: 'client.create',
          target: `client:${cid}`,
          outcome: 'success',
        }),
        expect.objectContaining({
          action: 'client.rotate_secret',
          target: `client:${cid}`,
          outcome: 'success',
        }),
        expect.objectContaining({
          action: 'client.disable',
          target: `client:${cid}`,
          outcome: 'success',
        }),
        expect.objectContaining({
          action: 'client.rotate_secret',
          target: `client:${cid}`,
          outcome: 'failure',
          detail: 'client_disabled',
        }),
        expect.objectContaining({
          action: 'client.rotate_secret',
          target: `client:${cid}`,
          outcome: 'failure',
          detail: 'validation_failed',
        }),
        expect.objectContaining({
          action: 'pat.create',
          target: `pat:${pat.pat_id as number}`,
          actor: 'ops@platform.example',
        }),
        expect.objectContaining({ action: 'pat.revoke', target: `pat:${pat.pat_id as number}` }),
        expect.objectContaining({
          action: 'client.create',
          outcome: 'failure',
          detail: 'validation_failed',
        }),
        expect.objectContaining({
          tenant_id: null,
          action: 'tenant.update',
          target: 'tenant:999998',
          outcome: 'failure',
          detail: 'not_found',
        }),
      ]);
      for (const line of lines.slice(0, -1)) expect(line.tenant_id).toBe(tenantId);
      for (const line of lines) {
        expect(line.credential_ref).toBe('platform:console');
        expect(line.actor).toEqual(expect.stringMatching(/@platform\.example$/));
      }
      const text = JSON.stringify(lines);
      for (const secret of [client.client_secret, rotated.client_secret, pat.token, key.key]) {
        expect(text).not.toContain(secret as string);
      }
    });

    it('a refused credential route by id carries no tenant when the id is unknown', async () => {
      await post(`/clients/${UNKNOWN_CLIENT}/disable`);
      const [line] = await auditLines(`action = 'client.disable' AND target = $1`, [
        `client:${UNKNOWN_CLIENT}`,
      ]);
      expect(line).toMatchObject({
        tenant_id: null,
        outcome: 'failure',
        detail: 'not_found',
        actor: ACTOR,
      });
    });
  });
});
