import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ENTITLEMENTS } from '../src/common/access/entitlements.js';
import { effectiveEntitlements } from '../src/modules/tenancy/plans.js';
import { CredentialAdminService } from '../src/modules/auth/credential-admin.service.js';
import { CredentialsService } from '../src/modules/auth/credentials.service.js';
import { TenancyService } from '../src/modules/tenancy/tenancy.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { basicAuth, createPat } from './support/auth-factories.js';
import { createClient, createTenant, issueToken } from './support/factories.js';
import { call } from './support/http.js';
import { createDocument, createProject } from './support/read-factories.js';
import { rememberSecret } from './support/secrets.js';

/**
 * The administrator operations the CLI and the platform API share (TenancyService,
 * CredentialAdminService), called as both do: paged lists, a tenant's detail and update, the
 * tenant of a credential found by its id, and client secret rotation.
 */
describe('tenant and credential administration services', () => {
  let t: TestApp;
  let tenancy: TenancyService;
  let admin: CredentialAdminService;

  beforeAll(async () => {
    t = await startTestApp();
    tenancy = t.app.get(TenancyService);
    admin = t.app.get(CredentialAdminService);
  });
  afterAll(async () => {
    await t?.close();
  });

  const refusal = async (work: Promise<unknown>): Promise<{ code: string; errors?: unknown }> => {
    try {
      await work;
    } catch (err) {
      return err as { code: string };
    }
    throw new Error('expected a refusal');
  };

  async function tokenFor(clientId: string, secret: string) {
    return call(t.baseUrl, 'POST', '/oauth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(clientId, secret),
      },
    });
  }

  describe('TenancyService', () => {
    it('pages every tenant oldest first: any page size walks all of them once, in order', async () => {
      for (let i = 0; i < 7; i++) await createTenant(t.app, 'starter');
      const all = (await tenancy.list()).data.map((x) => x.tenant_id);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 9 }), async (limit) => {
          const seen: number[] = [];
          let cursor: string | undefined;
          for (;;) {
            const page = await tenancy.page({ cursor, limit });
            expect(page.data.length).toBeLessThanOrEqual(limit);
            for (const item of page.data) {
              expect(Object.keys(item).sort()).toEqual(['created_at', 'name', 'plan', 'tenant_id']);
            }
            seen.push(...page.data.map((x) => x.tenant_id));
            if (page.next_cursor === null) break;
            cursor = page.next_cursor;
          }
          expect(seen).toEqual(all);
        }),
        { numRuns: 12 },
      );
    });

    it("refuses a cursor of another list (a tenant's clients) as validation_failed", async () => {
      const tenantId = await createTenant(t.app);
      await createClient(t.app, tenantId);
      await createClient(t.app, tenantId);
      const clients = await admin.pageClients(tenantId, { limit: 1 });
      expect(clients.next_cursor).not.toBeNull();
      const err = await refusal(tenancy.page({ cursor: clients.next_cursor!, limit: 10 }));
      expect(err.code).toBe('validation_failed');
    });

    it("shows a tenant's plan, entitlements, overrides and counts", async () => {
      const tenantId = await createTenant(t.app, 'professional');
      await tenancy.changeEntitlements(tenantId, [
        { entitlement: 'auth.pat', granted: true },
        { entitlement: 'api.locks', granted: false },
      ]);
      const enabled = await createClient(t.app, tenantId);
      const disabled = await createClient(t.app, tenantId);
      await admin.disableClient(disabled.clientId);
      const pat = await createPat(t.app, tenantId, { scopes: ['projects:read'] });
      await createPat(t.app, tenantId, { scopes: ['projects:read'] });
      await admin.revokePat(pat.patId);
      expect(enabled.tenantId).toBe(tenantId);
      const projectId = await createProject(t.app, tenantId);
      await createProject(t.app, tenantId);
      await createDocument(t.app, tenantId, projectId);
      await createDocument(t.app, tenantId, projectId, { versions: 2 });
      // another tenant's rows are not counted
      const other = await createTenant(t.app);
      await createDocument(t.app, other, await createProject(t.app, other));
      await createClient(t.app, other);

      const detail = await tenancy.detail(tenantId);
      expect(detail).toEqual({
        tenant_id: tenantId,
        name: expect.any(String),
        plan: 'professional',
        entitlements: ['api.read', 'api.revisions', 'auth.ip_allowlist', 'auth.pat'],
        overrides: [
          { entitlement: 'api.locks', granted: false },
          { entitlement: 'auth.pat', granted: true },
        ],
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        counts: {
          clients: 2,
          clients_enabled: 1,
          pats: 2,
          pats_active: 1,
          projects: 2,
          documents: 2,
        },
      });
      expect((await refusal(tenancy.detail(999_999))).code).toBe('not_found');
    });

    it('updates name, plan and entitlements in one call, with the rules of the CLI', async () => {
      const tenantId = await createTenant(t.app, 'starter');
      const updated = await tenancy.update(tenantId, {
        name: '  Renamed  ',
        plan: 'professional',
        entitlements: { add: ['auth.pat'], remove: ['api.locks'] },
      });
      expect(updated).toMatchObject({
        tenant_id: tenantId,
        name: 'Renamed',
        plan: 'professional',
        entitlements: ['api.read', 'api.revisions', 'auth.ip_allowlist', 'auth.pat'],
      });
      const reset = await tenancy.update(tenantId, { entitlements: { reset: ['api.locks'] } });
      expect(reset.entitlements).toContain('api.locks');
      expect(reset.overrides).toEqual([{ entitlement: 'auth.pat', granted: true }]);
      // nothing asked: the detail as it is
      expect(await tenancy.update(tenantId, {})).toEqual(reset);
    });

    it('refuses unknown entitlements, one named twice, and a bad name; changes nothing', async () => {
      const tenantId = await createTenant(t.app, 'starter');
      const before = await tenancy.detail(tenantId);
      const unknown = await refusal(
        tenancy.update(tenantId, { plan: 'enterprise', entitlements: { add: ['api.fly'] } }),
      );
      expect(unknown).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'entitlements.add[0]', message: expect.stringContaining('unknown') }],
      });
      const twice = await refusal(
        tenancy.update(tenantId, {
          entitlements: { add: ['auth.pat'], reset: ['api.read', 'auth.pat'] },
        }),
      );
      expect(twice).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'entitlements.reset[1]' }],
      });
      const blank = await refusal(tenancy.update(tenantId, { name: '   ', plan: 'enterprise' }));
      expect(blank).toMatchObject({ code: 'validation_failed', errors: [{ field: 'name' }] });
      expect(await tenancy.detail(tenantId)).toEqual(before);
    });

    it('any set of distinct entitlement changes lands as the overrides model says', async () => {
      const tenantId = await createTenant(t.app, 'professional');
      const model = new Map<string, boolean>();
      const changeSets = fc.uniqueArray(
        fc.tuple(fc.constantFrom(...ENTITLEMENTS), fc.integer({ min: 0, max: 2 })),
        { selector: ([name]) => name, maxLength: 6 },
      );
      await fc.assert(
        fc.asyncProperty(changeSets, async (set) => {
          const lists = { add: [] as string[], remove: [] as string[], reset: [] as string[] };
          for (const [name, which] of set) {
            lists[(['add', 'remove', 'reset'] as const)[which]!].push(name);
            if (which === 2) model.delete(name);
            else model.set(name, which === 0);
          }
          const updated = await tenancy.update(tenantId, { entitlements: lists });
          const overrides = [...model].map(([entitlement, granted]) => ({ entitlement, granted }));
          expect(updated.entitlements).toEqual(
            [...effectiveEntitlements('professional', overrides)].sort(),
          );
          expect(updated.overrides).toEqual(
            overrides.sort((x, y) => x.entitlement.localeCompare(y.entitlement)),
          );
        }),
        { numRuns: 20 },
      );
    });

    it('404 for an unknown tenant, whatever is asked', async () => {
      expect((await refusal(tenancy.update(999_999, { name: 'x' }))).code).toBe('not_found');
      expect((await refusal(tenancy.setPlan(999_999, 'starter'))).code).toBe('not_found');
      expect(
        (
          await refusal(
            tenancy.changeEntitlements(999_999, [{ entitlement: 'auth.pat', granted: true }]),
          )
        ).code,
      ).toBe('not_found');
    });
  });

  describe('CredentialAdminService', () => {
    it("pages a tenant's clients and PATs oldest first, never a secret", async () => {
      const tenantId = await createTenant(t.app);
      const clients = [];
      for (let i = 0; i < 5; i++)
        clients.push(await createClient(t.app, tenantId, { name: `c${i}` }));
      for (let i = 0; i < 3; i++) await createPat(t.app, tenantId, { name: `p${i}` });
      const walk = async <T>(
        read: (cursor?: string) => Promise<{ data: T[]; next_cursor: string | null }>,
      ) => {
        const all: T[] = [];
        let cursor: string | undefined;
        for (;;) {
          const page = await read(cursor);
          all.push(...page.data);
          if (!page.next_cursor) return all;
          cursor = page.next_cursor;
        }
      };
      const listed = await walk((cursor) => admin.pageClients(tenantId, { cursor, limit: 2 }));
      expect(listed.map((c) => c.client_id)).toEqual(clients.map((c) => c.clientId));
      expect(Object.keys(listed[0]!).sort()).toEqual([
        'allowed_ips',
        'client_id',
        'created_at',
        'enabled',
        'name',
        'scopes',
      ]);
      const pats = await walk((cursor) => admin.pagePats(tenantId, { cursor, limit: 2 }));
      expect(pats.map((p) => p.name)).toEqual(['p0', 'p1', 'p2']);
      expect(JSON.stringify([listed, pats])).not.toMatch(/gcs_|gpat_|digest/);
      // the whole list in one page, as the CLI prints it
      expect((await admin.pageClients(tenantId, { limit: 100 })).data).toEqual(
        (await admin.listClients(tenantId)).data,
      );
      // a cursor is the tenant's and the list's own
      const other = await createTenant(t.app);
      const cursor = (await admin.pageClients(tenantId, { limit: 1 })).next_cursor!;
      expect((await refusal(admin.pageClients(other, { cursor, limit: 1 }))).code).toBe(
        'validation_failed',
      );
      expect((await refusal(admin.pagePats(tenantId, { cursor, limit: 1 }))).code).toBe(
        'validation_failed',
      );
      expect((await refusal(admin.pageClients(999_999, { limit: 1 }))).code).toBe('not_found');
      expect((await refusal(admin.pagePats(999_999, { limit: 1 }))).code).toBe('not_found');
    });

    it('finds the tenant of a client or PAT by its id; 404 for an unknown one', async () => {
      const tenantId = await createTenant(t.app);
      const client = await createClient(t.app, tenantId);
      const pat = await createPat(t.app, tenantId);
      expect(await admin.tenantOfClient(client.clientId)).toBe(tenantId);
      expect(await admin.tenantOfPat(pat.patId)).toBe(tenantId);
      await admin.disableClient(client.clientId);
      expect(await admin.tenantOfClient(client.clientId)).toBe(tenantId);
      expect((await refusal(admin.tenantOfClient(`gci_${'x'.repeat(49)}`))).code).toBe('not_found');
      expect((await refusal(admin.tenantOfPat(999_999))).code).toBe('not_found');
    });

    it('disable and revoke answer the tenant the credential belonged to', async () => {
      const tenantId = await createTenant(t.app);
      const client = await createClient(t.app, tenantId);
      const pat = await createPat(t.app, tenantId);
      expect(await admin.disableClient(client.clientId)).toEqual({
        tenant_id: tenantId,
        client_id: client.clientId,
        enabled: false,
      });
      expect(await admin.revokePat(pat.patId)).toEqual({
        tenant_id: tenantId,
        pat_id: pat.patId,
        revoked_at: expect.any(String),
      });
    });

    it('rotation: the old secret is refused at once, issued tokens live on unless revoked', async () => {
      const tenantId = await createTenant(t.app);
      const client = await createClient(t.app, tenantId, { scopes: ['projects:read'] });
      // verified (and cached) before the rotation
      const issued = await tokenFor(client.clientId, client.clientSecret);
      expect(issued.status).toBe(200);
      const oldToken = issued.body.access_token as string;

      const rotated = await admin.rotateClientSecret(client.clientId);
      rememberSecret(rotated.client_secret);
      expect(rotated).toEqual({
        tenant_id: tenantId,
        client_id: client.clientId,
        client_secret: expect.stringMatching(/^gcs_[0-9A-Za-z]{49}$/),
        tokens_revoked: 0,
      });
      expect(rotated.client_secret).not.toBe(client.clientSecret);
      const refused = await tokenFor(client.clientId, client.clientSecret);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_client');
      const fresh = await tokenFor(client.clientId, rotated.client_secret);
      expect(fresh.status).toBe(200);
      const auth = (token: string) => ({ auth: `Bearer ${token}` });
      expect((await call(t.baseUrl, 'GET', '/projects', auth(oldToken))).status).toBe(200);

      const again = await admin.rotateClientSecret(client.clientId, { revokeTokens: true });
      rememberSecret(again.client_secret);
      expect(again.tokens_revoked).toBe(2);
      expect((await call(t.baseUrl, 'GET', '/projects', auth(oldToken))).status).toBe(401);
      expect(
        (await call(t.baseUrl, 'GET', '/projects', auth(fresh.body.access_token as string))).status,
      ).toBe(401);
      expect((await tokenFor(client.clientId, rotated.client_secret)).status).toBe(401);
      expect((await tokenFor(client.clientId, again.client_secret)).status).toBe(200);
    });

    it('rotation of a disabled client is 409 client_disabled; of an unknown one 404', async () => {
      const tenantId = await createTenant(t.app);
      const client = await createClient(t.app, tenantId);
      const token = await issueToken(t.app, client);
      await admin.disableClient(client.clientId);
      expect((await refusal(admin.rotateClientSecret(client.clientId))).code).toBe(
        'client_disabled',
      );
      expect(
        (await refusal(admin.rotateClientSecret(`gci_${'x'.repeat(49)}`, { revokeTokens: true })))
          .code,
      ).toBe('not_found');
      // nothing came back to life
      const verified = await t.app
        .get(CredentialsService)
        .verifyClient(client.clientId, client.clientSecret, { fresh: true });
      expect(verified).toBeNull();
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${token}` })).status).toBe(
        401,
      );
    });
  });
});
