import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { batches, batchOf, sql, type Statement } from '../src/common/database/statement.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, createTenant } from './support/factories.js';

describe('foundation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT: '64kb' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('row-level security', () => {
    it('a query that forgets its tenant filter sees only the current tenant', async () => {
      const a = await createTenant(t.app);
      const b = await createTenant(t.app);
      const ds = t.app.get(DataSource);
      await ds.query(
        `INSERT INTO projects (tenant_id, name) VALUES ($1, 'A1'), ($1, 'A2'), ($2, 'B1')`,
        [a, b],
      );
      const tx = t.app.get(TenantTransactions);
      const seen = await tx.run(a, () =>
        tx.manager.query('SELECT tenant_id, name FROM projects ORDER BY name'),
      );
      expect(seen).toEqual([
        { tenant_id: a, name: 'A1' },
        { tenant_id: a, name: 'A2' },
      ]);
      const seenByB = await tx.run(b, () => tx.manager.query('SELECT name FROM projects'));
      expect(seenByB).toEqual([{ name: 'B1' }]);
    });

    it("refuses an insert carrying another tenant's id", async () => {
      const a = await createTenant(t.app);
      const b = await createTenant(t.app);
      const tx = t.app.get(TenantTransactions);
      await expect(
        tx.run(a, () =>
          tx.manager.query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'sneaky')`, [b]),
        ),
      ).rejects.toThrow(/row-level security/);
      const ds = t.app.get(DataSource);
      expect(await ds.query(`SELECT 1 FROM projects WHERE name = 'sneaky'`)).toEqual([]);
    });

    it('an update cannot move a row to another tenant', async () => {
      const a = await createTenant(t.app);
      const b = await createTenant(t.app);
      const ds = t.app.get(DataSource);
      await ds.query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'mine')`, [a]);
      const tx = t.app.get(TenantTransactions);
      await expect(
        tx.run(a, () =>
          tx.manager.query(`UPDATE projects SET tenant_id = $1 WHERE name = 'mine'`, [b]),
        ),
      ).rejects.toThrow(/row-level security/);
    });

    it('opening reads run under row-level security, in order, with the work in their transaction', async () => {
      const a = await createTenant(t.app);
      const b = await createTenant(t.app);
      const ds = t.app.get(DataSource);
      await ds.query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'oa'), ($2, 'ob')`, [
        a,
        b,
      ]);
      const tx = t.app.get(TenantTransactions);
      const names = (statement: Statement<{ name: unknown }>) =>
        batchOf(statement, (rows) => rows.map((r) => r.name));
      const projectNames = (min: unknown) =>
        names(sql`SELECT name FROM projects WHERE id >= ${min} AND name LIKE 'o%' ORDER BY name`);
      const setting = (one: unknown) =>
        names(sql`SELECT current_setting('app.tenant_id') AS name WHERE ${one} = 1`);
      const opening = batches(projectNames(0), setting(1));
      const seen = await tx.runOpening(a, opening, async ([projects, setting]) => {
        const inside: unknown[] = await tx.manager.query(
          `SELECT current_setting('app.tenant_id') AS s`,
        );
        return { projects, setting, inside };
      });
      expect(seen).toEqual({ projects: ['oa'], setting: [String(a)], inside: [{ s: String(a) }] });
      // inside a transaction already, the statements run in it
      const nested = await tx.run(b, async () => {
        await tx.manager.query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'ob2')`, [b]);
        return tx.runOpening(b, opening, async ([projects]) => projects);
      });
      expect(nested).toEqual(['ob', 'ob2']);
      // only integers are ever inlined into the SQL text
      await expect(
        tx.runOpening(a, batches(projectNames(0.5), setting(1)), async () => 'ran'),
      ).rejects.toThrow(/must be an integer/);
    });

    it('without a tenant the application role sees nothing at all', async () => {
      const a = await createTenant(t.app);
      const ds = t.app.get(DataSource);
      await ds.query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'x')`, [a]);
      const rows = await ds.transaction(async (m) => {
        await m.query('SET LOCAL ROLE grc_app');
        return m.query('SELECT * FROM projects');
      });
      expect(rows).toEqual([]);
    });
  });

  describe('HTTP conventions', () => {
    it('answers an unknown route with 401 without a token and 404 with one', async () => {
      const anonymous = await fetch(`${t.baseUrl}/api/v1/nowhere`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="api"');
      expect((await anonymous.json()) as object).toMatchObject({
        status: 401,
        code: 'unauthenticated',
        type: 'urn:problem:unauthenticated',
      });

      const caller = await createCaller(t.app);
      const known = await fetch(`${t.baseUrl}/api/v1/nowhere`, {
        headers: { authorization: caller.auth },
      });
      expect(known.status).toBe(404);
      expect((await known.json()) as object).toMatchObject({
        status: 404,
        code: 'not_found',
        title: 'Not found',
      });
    });

    it('refuses a malformed token with invalid_token', async () => {
      const res = await fetch(`${t.baseUrl}/api/v1/nowhere`, {
        headers: { authorization: 'Bearer gat_nope' },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
      expect(((await res.json()) as { code: string }).code).toBe('invalid_token');
    });

    it('echoes a request id, or mints one', async () => {
      const echoed = await fetch(`${t.baseUrl}/health/live`, {
        headers: { 'x-request-id': 'abc-123' },
      });
      expect(echoed.headers.get('x-request-id')).toBe('abc-123');
      const minted = await fetch(`${t.baseUrl}/health/live`, {
        headers: { 'x-request-id': 'bad id\twith junk' },
      });
      expect(minted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const problem = await fetch(`${t.baseUrl}/api/v1/nowhere`, {
        headers: { 'x-request-id': 'req-42' },
      });
      expect(((await problem.json()) as { request_id: string }).request_id).toBe('req-42');
    });

    it('answers malformed JSON with 400 validation_failed (401 first without a token)', async () => {
      const { auth } = await createCaller(t.app);
      const send = (headers: Record<string, string>) =>
        fetch(`${t.baseUrl}/api/v1/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{"a":',
        });
      // docs/operators/security.md: no body is read before the credential is known
      expect((await send({})).status).toBe(401);
      const res = await send({ authorization: auth });
      expect(res.status).toBe(400);
      const body = (await res.json()) as object;
      expect(body).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'body', message: 'malformed JSON' }],
      });
    });

    it('answers malformed JSON at the token endpoint in RFC 6749 shape', async () => {
      const res = await fetch(`${t.baseUrl}/api/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type":',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'the body is not valid JSON',
      });
    });

    it('answers a body over BODY_LIMIT with 413', async () => {
      const { auth } = await createCaller(t.app);
      const res = await fetch(`${t.baseUrl}/api/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }),
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    });
  });

  describe('health and documentation', () => {
    it('reports liveness and readiness outside /api/v1', async () => {
      expect((await fetch(`${t.baseUrl}/health/live`)).status).toBe(200);
      const ready = await fetch(`${t.baseUrl}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', database: 'up' });
    });

    it('serves the OpenAPI document (1.0.0) and Swagger UI', async () => {
      const doc = await fetch(`${t.baseUrl}/api/v1/openapi.json`);
      expect(doc.status).toBe(200);
      const body = (await doc.json()) as any;
      expect(body.info.version).toBe('1.0.0');
      expect(body.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
        '/api/v1/oauth/token',
      );
      // the tokens are opaque strings, not JWTs
      expect(body.components.securitySchemes.bearer).toMatchObject({
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
      });
      const ui = await fetch(`${t.baseUrl}/api/v1/docs`);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('swagger');
    });

    it('logs one structured line per request without the Authorization header', async () => {
      const caller = await createCaller(t.app);
      await fetch(`${t.baseUrl}/api/v1/nowhere`, {
        headers: { authorization: caller.auth, 'x-request-id': 'log-check-1' },
      });
      const lines = t.logs.filter((l) => l.includes('log-check-1'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      const line = JSON.parse(lines.find((l) => l.includes('"res"'))!);
      expect(line.req.path).toBe('/api/v1/nowhere');
      expect(line.res.statusCode).toBe(404);
      expect(t.logs.join('\n')).not.toContain(caller.token);
    });
  });
});
