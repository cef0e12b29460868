import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { CredentialCache } from '../src/modules/auth/credential-cache.js';
import { PlatformKeysRepository } from '../src/modules/platform-keys/platform-keys.repository.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createPlatformKey, platformCall } from './support/platform-factories.js';
import { createRevisionFixture, revisionRows, stage } from './support/revision-factories.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Verified platform keys are kept in the credential cache (src/platform-api/platform-key-verifier.ts):
 * a request with a key seen before costs no look-up, and a revocation still holds at once for
 * every write (the generation read when the tenant transaction opens) and within the
 * notification's latency for everything else.
 */
describe('platform API: verified platform keys in memory', () => {
  let t: TestApp;
  let cache: CredentialCache;

  beforeAll(async () => {
    t = await startTestApp();
    cache = t.app.get(CredentialCache, { strict: false });
    // answers come from memory only while the process listens for changes
    await platformCall(t, 'GET', '/revisions', { auth: 'Bearer gpk_warm' });
    for (let i = 0; i < 200 && !cache.listening; i++) await sleep(25);
    expect(cache.listening).toBe(true);
  });
  afterAll(async () => {
    await t?.close();
  });

  const revoke = (keyId: number) =>
    t.app
      .get(DataSource)
      .query('UPDATE platform_keys SET revoked_at = now() WHERE id = $1', [keyId]);

  it('looks a key up once, not on every request', async () => {
    const key = await createPlatformKey(t.app, ['platform:reviews'], 'cached-ui');
    const lookUps = jest.spyOn(t.app.get(PlatformKeysRepository), 'activeByDigest');
    try {
      expect((await platformCall(t, 'GET', '/revisions', { auth: key.auth })).status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => platformCall(t, 'GET', '/revisions', { auth: key.auth })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      // one look-up, or a few more when entries end (1 s) or another process's credential change
      // empties the cache (a shared test database) meanwhile; without the cache: 11
      expect(lookUps.mock.calls.length).toBeLessThanOrEqual(3);
    } finally {
      lookUps.mockRestore();
    }
  });

  it('refuses a write with a key revoked since it was cached, before the notification empties the cache', async () => {
    const key = await createPlatformKey(t.app, ['platform:reviews'], 'revoked-ui');
    const f = await createRevisionFixture(t.app, { plan: 'enterprise' });
    const staged = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { a: 1 } });
    expect(staged.status).toBe(201);
    const revisionId = staged.body.revisionId as number;
    expect((await platformCall(t, 'GET', '/revisions', { auth: key.auth })).status).toBe(200);
    // the notification is lost for now: only the generation can tell
    const invalidate = jest.spyOn(cache, 'invalidate').mockImplementation(() => undefined);
    try {
      await revoke(key.keyId);
      const res = await platformCall(t, 'POST', `/revisions/${revisionId}/accept`, {
        auth: key.auth,
        actor: 'Revoked Reviewer',
        body: {},
      });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_token');
      const [row] = await revisionRows(t.app, f.documentId);
      expect(row?.status).toBe('staged');
    } finally {
      invalidate.mockRestore();
      cache.invalidate();
    }
  });

  it('refuses a revoked key on reads as soon as the notification arrives', async () => {
    const key = await createPlatformKey(t.app, ['platform:reviews'], 'read-ui');
    expect((await platformCall(t, 'GET', '/revisions', { auth: key.auth })).status).toBe(200);
    const heard = cache.stats.invalidations;
    await revoke(key.keyId);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 5_000) {
      status = (await platformCall(t, 'GET', '/revisions', { auth: key.auth })).status;
    }
    expect(status).toBe(401);
    // by the revocation's own notification, not by the entry's age
    expect(cache.stats.invalidations).toBeGreaterThan(heard);
  });
});
