import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { digest, isWellFormedToken, mintToken } from '../src/common/crypto/tokens.js';
import { SCOPES } from '../src/common/access/scopes.js';
import { startTestApp, type TestApp } from './support/app.js';
import { basicAuth } from './support/auth-factories.js';
import { runCli } from './support/cli.js';
import { withMessage } from './support/expect-message.js';
import { call } from './support/http.js';

const DAY_MS = 24 * 60 * 60 * 1000;

// every step spawns the CLI (a node process, answered on the test app's admin socket)
jest.setTimeout(180_000);

describe('administration CLI: tenants, clients, PATs, demo seed', () => {
  let t: TestApp;

  const lines = (stdout: string): number => stdout.split('\n').filter((l) => l !== '').length;

  /** Exactly one JSON object on stdout, and the expected exit code. */
  async function run(expectedCode: number, ...args: string[]): Promise<any> {
    const res = await runCli(t, ...args);
    withMessage(`${args.join(' ')}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`, () =>
      expect({
        code: res.code,
        isObject: typeof res.out === 'object' && res.out !== null,
        lines: lines(res.stdout),
      }).toEqual({ code: expectedCode, isObject: true, lines: 1 }),
    );
    return res.out;
  }

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function tenant(plan: string): Promise<number> {
    const out = await run(0, 'tenant', 'create', '--name', `CLI ${plan}`, '--plan', plan);
    expect(out).toMatchObject({ name: `CLI ${plan}`, plan });
    return out.tenant_id as number;
  }

  async function tokenFor(clientId: string, secret: string, xff?: string) {
    return call(t.baseUrl, 'POST', '/oauth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(clientId, secret),
        ...(xff ? { 'x-forwarded-for': xff } : {}),
      },
    });
  }

  describe('client', () => {
    it('client create prints the client once; repeated --allow-ip accumulate (v4 and v6)', async () => {
      const tenantId = await tenant('professional');
      const out = await run(
        0,
        'client',
        'create',
        '--tenant',
        String(tenantId),
        '--name',
        'erp',
        '--scopes',
        'projects:read documents:read',
        '--allow-ip',
        '10.0.0.0/8',
        '--allow-ip',
        '2001:db8::1/32',
        '--allow-ip',
        '192.0.2.7/32',
      );
      expect(Object.keys(out).sort()).toEqual([
        'allowed_ips',
        'client_id',
        'client_secret',
        'scopes',
      ]);
      expect(out.client_id).toMatch(/^gci_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(out.client_secret as string, 'gcs')).toBe(true);
      expect(out.scopes).toEqual(['projects:read', 'documents:read']);
      expect(out.allowed_ips).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7/32']);

      const [row] = await t.app
        .get(DataSource)
        .query<Array<{ secret_digest: Buffer; allowed_ips: string[] }>>(
          'SELECT secret_digest, allowed_ips FROM api_clients WHERE client_id = $1',
          [out.client_id],
        );
      expect(row!.secret_digest.equals(digest(out.client_secret as string))).toBe(true);
      expect(row!.allowed_ips).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7/32']);

      const secret = out.client_secret as string;
      for (const ip of ['10.2.3.4', '2001:db8:9::1', '192.0.2.7']) {
        const ok = await tokenFor(out.client_id as string, secret, ip);
        withMessage(ip, () => expect(ok.status).toBe(200));
        expect(ok.body.scope).toBe('projects:read documents:read');
      }
      const refused = await tokenFor(out.client_id as string, secret, '192.0.2.8');
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_client');
    });

    it('client create without --allow-ip gives an open client with every scope asked', async () => {
      const tenantId = await tenant('starter');
      const out = await run(
        0,
        'client',
        'create',
        '--tenant',
        String(tenantId),
        '--name',
        'all',
        '--scopes',
        SCOPES.join(' '),
      );
      expect(out.scopes).toEqual([...SCOPES]);
      expect(out.allowed_ips).toEqual([]);
      const res = await tokenFor(out.client_id as string, out.client_secret as string);
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe(SCOPES.join(' '));
    });

    it('client create refuses an allowlist without auth.ip_allowlist and an unknown tenant (exit 1)', async () => {
      const starter = await tenant('starter');
      const noAllowlist = await run(
        1,
        'client',
        'create',
        '--tenant',
        String(starter),
        '--name',
        'erp',
        '--scopes',
        'projects:read',
        '--allow-ip',
        '10.0.0.0/8',
      );
      expect(noAllowlist.error.code).toBe('entitlement_required');
      expect(noAllowlist.error.message).toContain('auth.ip_allowlist');

      const unknown = await run(
        1,
        'client',
        'create',
        '--tenant',
        '999999',
        '--name',
        'erp',
        '--scopes',
        'projects:read',
      );
      expect(unknown.error.code).toBe('not_found');
    });

    it('client disable stops the client and its tokens at once', async () => {
      const tenantId = await tenant('enterprise');
      const created = await run(
        0,
        'client',
        'create',
        '--tenant',
        String(tenantId),
        '--name',
        'leaving',
        '--scopes',
        'projects:read',
      );
      const issued = await tokenFor(created.client_id as string, created.client_secret as string);
      expect(issued.status).toBe(200);
      const auth = `Bearer ${issued.body.access_token as string}`;
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);

      const out = await run(0, 'client', 'disable', '--client', created.client_id as string);
      expect(out).toEqual({ client_id: created.client_id, enabled: false });
      const denied = await tokenFor(created.client_id as string, created.client_secret as string);
      expect(denied.status).toBe(401);
      expect(denied.body.error).toBe('invalid_client');
      const api = await call(t.baseUrl, 'GET', '/projects', { auth });
      expect(api.status).toBe(401);
      expect(api.body.code).toBe('invalid_token');

      const unknown = await run(1, 'client', 'disable', '--client', mintToken('gci'));
      expect(unknown.error.code).toBe('not_found');
    });
  });

  describe('pat', () => {
    it('pat create shows the token once with a 90-day default expiry; it works as a bearer', async () => {
      const tenantId = await tenant('enterprise');
      const before = Date.now();
      const out = await run(
        0,
        'pat',
        'create',
        '--tenant',
        String(tenantId),
        '--name',
        'portal',
        '--scopes',
        'projects:read',
      );
      expect(Object.keys(out).sort()).toEqual(['expires_at', 'pat_id', 'token']);
      expect(typeof out.pat_id).toBe('number');
      expect(out.token).toMatch(/^gpat_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(out.token as string, 'gpat')).toBe(true);
      const expires = Date.parse(out.expires_at as string);
      expect(Math.abs(expires - (before + 90 * DAY_MS))).toBeLessThan(60_000);

      const auth = `Bearer ${out.token as string}`;
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
      const [row] = await t.app
        .get(DataSource)
        .query<Array<{ token_digest: Buffer }>>(
          'SELECT token_digest FROM personal_access_tokens WHERE id = $1',
          [out.pat_id],
        );
      expect(row!.token_digest.equals(digest(out.token as string))).toBe(true);

      const revoked = await run(0, 'pat', 'revoke', '--pat', String(out.pat_id));
      expect(revoked.pat_id).toBe(out.pat_id);
      expect(Date.parse(revoked.revoked_at as string)).toBeGreaterThan(before - 1000);
      const after = await call(t.baseUrl, 'GET', '/projects', { auth });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('invalid_token');

      const again = await run(0, 'pat', 'revoke', '--pat', String(out.pat_id));
      expect(again.revoked_at).toBe(revoked.revoked_at);
      const unknown = await run(1, 'pat', 'revoke', '--pat', '999999');
      expect(unknown.error.code).toBe('not_found');
    });

    it('pat create honours --expires-in-days and --allow-ip', async () => {
      const tenantId = await tenant('enterprise');
      const before = Date.now();
      const out = await run(
        0,
        'pat',
        'create',
        '--tenant',
        String(tenantId),
        '--name',
        'year',
        '--scopes',
        'projects:read documents:read',
        '--expires-in-days',
        '365',
        '--allow-ip',
        '198.51.100.0/24',
        '--allow-ip',
        '2001:db8:5::/48',
      );
      expect(Math.abs(Date.parse(out.expires_at as string) - (before + 365 * DAY_MS))).toBeLessThan(
        60_000,
      );
      const auth = `Bearer ${out.token as string}`;
      for (const ip of ['198.51.100.9', '2001:db8:5:1::1']) {
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth,
          headers: { 'x-forwarded-for': ip },
        });
        withMessage(ip, () => expect(res.status).toBe(200));
      }
      const refused = await call(t.baseUrl, 'GET', '/projects', {
        auth,
        headers: { 'x-forwarded-for': '203.0.113.1' },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ip_not_allowed');
    });

    it('pat create needs auth.pat (exit 1)', async () => {
      const tenantId = await tenant('professional');
      const out = await run(
        1,
        'pat',
        'create',
        '--tenant',
        String(tenantId),
        '--name',
        'portal',
        '--scopes',
        'projects:read',
      );
      expect(out.error.code).toBe('entitlement_required');
      expect(out.error.message).toContain('auth.pat');
    });
  });

  it('usage errors: exit 2 and exactly one JSON error object', async () => {
    const base = ['--tenant', '1', '--name', 'x', '--scopes', 'projects:read'];
    const cases: Array<[string, string[]]> = [
      ['unknown option', ['client', 'create', ...base, '--frobnicate']],
      ['missing --tenant', ['client', 'create', '--name', 'x', '--scopes', 'projects:read']],
      [
        'malformed --tenant',
        ['pat', 'create', '--tenant', 'one', '--name', 'x', '--scopes', 'projects:read'],
      ],
      [
        'unknown scope',
        ['client', 'create', '--tenant', '1', '--name', 'x', '--scopes', 'projects:write'],
      ],
      ['malformed CIDR', ['client', 'create', ...base, '--allow-ip', '10.0.0.0/33']],
      ['not a CIDR', ['pat', 'create', ...base, '--allow-ip', 'localhost']],
      ['missing value', ['client', 'create', '--tenant', '1', '--name', 'x', '--scopes']],
      ['unknown command', ['client', 'frobnicate']],
      ['malformed --client', ['client', 'disable', '--client', 'erp']],
      ['--expires-in-days over a year', ['pat', 'create', ...base, '--expires-in-days', '366']],
      ['--expires-in-days not a number', ['pat', 'create', ...base, '--expires-in-days', 'soon']],
      ['malformed --pat', ['pat', 'revoke', '--pat', '7x']],
    ];
    // three at a time: each run is a node process, and the machine has few cores
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map(([, args]) => runCli(t, ...args)));
      results.forEach((res, k) => {
        const [name] = batch[k]!;
        withMessage(res.stdout + res.stderr, () =>
          expect({ name, code: res.code, lines: lines(res.stdout), out: res.out }).toEqual({
            name,
            code: 2,
            lines: 1,
            out: { error: { code: 'usage', message: expect.stringMatching(/.{6,}/) } },
          }),
        );
      });
    }
  });

  describe('demo seed', () => {
    it('creates an enterprise tenant, a client with every scope, projects, documents and files', async () => {
      const out = await run(0, 'demo', 'seed');
      expect(Object.keys(out).sort()).toEqual([
        'client_id',
        'client_secret',
        'projects',
        'tenant_id',
      ]);
      expect(isWellFormedToken(out.client_secret as string, 'gcs')).toBe(true);
      expect(out.projects).toHaveLength(2);
      const [tenantRow] = await t.app
        .get(DataSource)
        .query<Array<{ plan: string }>>('SELECT plan FROM tenants WHERE id = $1', [out.tenant_id]);
      expect(tenantRow!.plan).toBe('enterprise');

      const issued = await tokenFor(out.client_id as string, out.client_secret as string);
      expect(issued.status).toBe(200);
      expect(issued.body.scope).toBe(SCOPES.join(' '));
      const auth = `Bearer ${issued.body.access_token as string}`;
      const projects = await call(t.baseUrl, 'GET', '/projects', { auth });
      expect(projects.status).toBe(200);
      expect(projects.body.data.map((p: { projectId: number }) => p.projectId)).toEqual(
        out.projects.map((p: { projectId: number }) => p.projectId),
      );
      for (const p of out.projects as Array<{
        projectId: number;
        documents: Array<{ documentId: number; title: string }>;
        files: Array<{ fileId: number }>;
      }>) {
        expect(p.documents.length).toBeGreaterThanOrEqual(2);
        expect(p.files.length).toBeGreaterThanOrEqual(1);
        const docs = await call(t.baseUrl, 'GET', `/projects/${p.projectId}/documents`, { auth });
        expect(docs.status).toBe(200);
        const files = await call(t.baseUrl, 'GET', `/projects/${p.projectId}/files`, { auth });
        expect(files.status).toBe(200);
        expect(files.text).not.toContain('demo://');
        const doc = await call(t.baseUrl, 'GET', `/documents/${p.documents[0]!.documentId}`, {
          auth,
        });
        expect(doc.status).toBe(200);
        expect(doc.body.title).toBe(p.documents[0]!.title);
        expect(doc.body.versions).toHaveLength(1);
      }

      // a second seed is a second, independent demo tenant
      const again = await run(0, 'demo', 'seed');
      expect(again.tenant_id).not.toBe(out.tenant_id);
      expect(again.client_id).not.toBe(out.client_id);
    });
  });

  it('never logs a client secret or token of the CLI runs in the API log', () => {
    const logs = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(5);
    expect(logs).not.toMatch(/g(cs|at|pat)_[0-9A-Za-z]{49}/);
  });
});
