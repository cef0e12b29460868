import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { digest } from '../src/common/crypto/tokens.js';
import { CredentialCache } from '../src/modules/auth/credential-cache.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, createClient, createTenant, issueToken } from './support/factories.js';
import { createLockableDocument } from './support/lock-factories.js';
import { call } from './support/http.js';
import { runCliInProcess } from './support/cli.js';

/**
 * The in-memory credential cache (src/modules/auth/credential-cache.ts): what it saves, and that
 * it never answers with a credential the database no longer vouches for — a change made by any
 * connection empties it through `NOTIFY credentials_changed`, and it is bypassed whenever that
 * notification channel is down.
 */

/** Waits until the app's cache is listening (it starts on the first authenticated request). */
async function untilListening(t: TestApp, auth: string): Promise<void> {
  const cache = t.app.get(CredentialCache);
  const deadline = Date.now() + 10_000;
  for (;;) {
    await call(t.baseUrl, 'GET', '/projects', { auth });
    if (cache.listening) {
      // this request's answer is kept now
      await call(t.baseUrl, 'GET', '/projects', { auth });
      return;
    }
    if (Date.now() > deadline) throw new Error('the credential cache never started listening');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A statement on a connection of its own, as another process (or an operator's psql) would. */
async function sql(t: TestApp, text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: t.config.DATABASE_URL });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

/** Revokes an access token without firing the notification trigger (an unannounced change). */
async function revokeSilently(t: TestApp, token: string): Promise<void> {
  await sql(
    t,
    `BEGIN;
     ALTER TABLE access_tokens DISABLE TRIGGER access_tokens_changed;
     UPDATE access_tokens SET revoked_at = now() WHERE token_digest = '\\x${digest(token).toString('hex')}';
     ALTER TABLE access_tokens ENABLE TRIGGER access_tokens_changed;
     COMMIT;`,
  );
}

describe('credential cache', () => {
  describe('with the default settings', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ AUTH_CACHE_TTL_MS: '60000' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers a known token from memory: an unannounced revocation is not seen', async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      await revokeSilently(t, c.token);
      // proves the request did not consult the database; the triggers make this impossible in
      // normal operation (next tests)
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(200);
    });

    it('a revocation committed by another connection is refused on the very next request, 50 times out of 50', async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      const stale: number[] = [];
      for (let i = 0; i < 50; i++) {
        const token = await issueToken(t.app, c.client);
        const auth = `Bearer ${token}`;
        expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
        expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
        await sql(t, `UPDATE access_tokens SET revoked_at = now() WHERE token_digest = $1`, [
          digest(token),
        ]);
        const after = await call(t.baseUrl, 'GET', '/projects', { auth });
        if (after.status !== 401) stale.push(i);
      }
      expect(stale).toEqual([]);
    });

    it('a plan change made by the CLI (another process) applies to the next request', async () => {
      const tenantId = await createTenant(t.app, 'enterprise');
      const client = await createClient(t.app, tenantId);
      const auth = `Bearer ${await issueToken(t.app, client)}`;
      await untilListening(t, auth);
      expect((await call(t.baseUrl, 'GET', '/webhooks', { auth })).status).toBe(200);
      // the CLI on its own: a process apart from the app's, as the test says
      const changed = await runCliInProcess(
        t,
        'tenant',
        'set-plan',
        '--tenant',
        String(tenantId),
        '--plan',
        'professional',
      );
      expect(changed.code).toBe(0);
      const res = await call(t.baseUrl, 'GET', '/webhooks', { auth });
      expect({ status: res.status, code: res.body?.code }).toEqual({
        status: 403,
        code: 'entitlement_required',
      });
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
    });

    it('entitlement overrides, client disablement and tenant changes each empty the cache', async () => {
      const cache = t.app.get(CredentialCache);
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      const statements = [
        `INSERT INTO tenant_entitlement_overrides (tenant_id, entitlement, granted)
           VALUES (${c.tenantId}, 'api.webhooks', false)`,
        `DELETE FROM tenant_entitlement_overrides WHERE tenant_id = ${c.tenantId}`,
        `UPDATE tenants SET name = name WHERE id = ${c.tenantId}`,
        `UPDATE api_clients SET name = name WHERE id = ${c.client.id}`,
        `UPDATE personal_access_tokens SET name = name WHERE false`,
        `UPDATE access_tokens SET scopes = scopes WHERE false`,
      ];
      for (const statement of statements) {
        const before = cache.stats.invalidations;
        await sql(t, statement);
        const deadline = Date.now() + 2_000;
        while (cache.stats.invalidations === before && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 2));
        }
        expect({ statement, emptied: cache.stats.invalidations > before }).toEqual({
          statement,
          emptied: true,
        });
      }
    });

    it('a new access token does not empty the cache (the token endpoint would thrash it)', async () => {
      const cache = t.app.get(CredentialCache);
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      const before = cache.stats.invalidations;
      await issueToken(t.app, c.client);
      // a notification, were there one, arrives within milliseconds
      await new Promise((r) => setTimeout(r, 200));
      expect(cache.stats.invalidations).toBe(before);
    });

    it("never answers past the token's own expiry", async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      // long enough for the first request on a loaded machine; the wait below follows it
      const token = await issueToken(t.app, c.client, undefined, 3);
      const auth = `Bearer ${token}`;
      const { rows } = await sql(
        t,
        `SELECT expires_at FROM access_tokens WHERE token_digest = $1`,
        [digest(token)],
      );
      const expiresAt = (rows[0].expires_at as Date).getTime();
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 50));
      expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(401);
    });

    it('is bypassed while its notification connection is down, and emptied when it is back', async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      await sql(
        t,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'grc-credential-cache' AND datname = current_database()`,
      );
      // the app has seen its connection end (it reconnects a second later at the earliest)
      const cache = t.app.get(CredentialCache);
      const deadline = Date.now() + 5_000;
      while (cache.listening && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      expect(cache.listening).toBe(false);
      // whether the request sees the connection down (look-up) or already back (emptied on
      // reconnect), a change nobody announced must be seen
      await revokeSilently(t, c.token);
      const res = await call(t.baseUrl, 'GET', '/projects', { auth: c.auth });
      expect(res.status).toBe(401);
      const other = await createCaller(t.app);
      await untilListening(t, other.auth);
    });
  });

  describe('when a change has committed but its notification has not arrived yet', () => {
    let t: TestApp;
    let restore: () => void;
    beforeAll(async () => {
      t = await startTestApp({ AUTH_CACHE_TTL_MS: '60000' });
    });
    afterAll(async () => {
      await t.close();
    });

    /** The cache keeps everything it knows, as if every notification were still on its way. */
    function deafen(): void {
      const cache = t.app.get(CredentialCache);
      const invalidate = cache.invalidate.bind(cache);
      cache.invalidate = () => undefined;
      restore = () => {
        cache.invalidate = invalidate;
      };
    }

    it('a revoked token touches no data: the transaction sees the newer generation and verifies again', async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      deafen();
      try {
        await sql(t, `UPDATE access_tokens SET revoked_at = now() WHERE token_digest = $1`, [
          digest(c.token),
        ]);
        for (const path of ['/projects', `/projects/1/documents`, '/webhooks']) {
          const res = await call(t.baseUrl, 'GET', path, { auth: c.auth });
          expect({ path, status: res.status, code: res.body?.code }).toEqual({
            path,
            status: 401,
            code: 'invalid_token',
          });
          expect(res.headers.get('www-authenticate')).toBe(
            'Bearer realm="api", error="invalid_token"',
          );
        }
      } finally {
        restore();
      }
    });

    it('a revoked token writes nothing on routes with a body either (the scope opens after the body is read)', async () => {
      const c = await createCaller(t.app);
      const { documentId } = await createLockableDocument(t.app, c.tenantId);
      await untilListening(t, c.auth);
      deafen();
      try {
        await sql(t, `UPDATE access_tokens SET revoked_at = now() WHERE token_digest = $1`, [
          digest(c.token),
        ]);
        const writes: Array<[string, unknown]> = [
          [
            '/webhooks',
            { name: 'after revoke', endpoint_url: 'https://hooks.example.com/x', events: ['*'] },
          ],
          [`/documents/${documentId}/external-revisions`, { content: { body: 'after revoke' } }],
          [`/documents/${documentId}/checkout`, { ttl_minutes: 5 }],
        ];
        for (const [path, body] of writes) {
          const res = await call(t.baseUrl, 'POST', path, { auth: c.auth, body });
          expect({ path, status: res.status, code: res.body?.code }).toEqual({
            path,
            status: 401,
            code: 'invalid_token',
          });
        }
        const written = await sql(
          t,
          `SELECT (SELECT count(*) FROM webhooks WHERE tenant_id = $1)::int AS webhooks,
                  (SELECT count(*) FROM external_revisions WHERE tenant_id = $1)::int AS revisions,
                  (SELECT count(*) FROM document_locks WHERE tenant_id = $1)::int AS locks`,
          [c.tenantId],
        );
        expect(written.rows[0]).toEqual({ webhooks: 0, revisions: 0, locks: 0 });
      } finally {
        restore();
      }
    });

    it('a plan change applies to the next request that touches data', async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      expect((await call(t.baseUrl, 'GET', '/webhooks', { auth: c.auth })).status).toBe(200);
      deafen();
      try {
        await sql(t, `UPDATE tenants SET plan = 'professional' WHERE id = $1`, [c.tenantId]);
        const res = await call(t.baseUrl, 'GET', '/webhooks', { auth: c.auth });
        expect({ status: res.status, code: res.body?.code }).toEqual({
          status: 403,
          code: 'entitlement_required',
        });
        // what the new plan still allows goes on working, verified against the new rows
        expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(200);
      } finally {
        restore();
      }
    });

    it('a disabled client gets no token, though its verification was cached', async () => {
      const c = await createCaller(t.app);
      const ask = () =>
        call(t.baseUrl, 'POST', '/oauth/token', {
          body: {
            grant_type: 'client_credentials',
            client_id: c.client.clientId,
            client_secret: c.client.clientSecret,
          },
        });
      await untilListening(t, c.auth);
      expect((await ask()).status).toBe(200);
      deafen();
      try {
        await sql(t, `UPDATE api_clients SET enabled = false WHERE id = $1`, [c.client.id]);
        const refused = await ask();
        expect({ status: refused.status, error: refused.body?.error }).toEqual({
          status: 401,
          error: 'invalid_client',
        });
        const { rows } = await sql(
          t,
          `SELECT count(*)::int AS n FROM access_tokens WHERE api_client_id = $1`,
          [c.client.id],
        );
        // the factory's token and the one issued before the change; none after it
        expect(rows[0].n).toBe(2);
      } finally {
        restore();
      }
    });
  });

  describe('with AUTH_CACHE_TTL_MS=0', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ AUTH_CACHE_TTL_MS: '0' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('looks every request up: an unannounced revocation is seen at once', async () => {
      const c = await createCaller(t.app);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(200);
      await revokeSilently(t, c.token);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(401);
    });
  });

  describe('with a short age limit', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ AUTH_CACHE_TTL_MS: '300' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('forgets an entry after AUTH_CACHE_TTL_MS even if a change went unannounced', async () => {
      const c = await createCaller(t.app);
      await untilListening(t, c.auth);
      await revokeSilently(t, c.token);
      await new Promise((r) => setTimeout(r, 400));
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(401);
    });
  });
});
