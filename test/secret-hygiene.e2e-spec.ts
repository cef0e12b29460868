import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createLockableDocument } from './support/lock-factories.js';
import {
  leakedSecrets,
  rememberSecret,
  rememberSecretsIn,
  secretsRemembered,
} from './support/secrets.js';

describe('secret hygiene', () => {
  it('the leak detector finds a remembered secret in log lines, masked', () => {
    const secret = 'gat_' + 'A'.repeat(49);
    rememberSecret(secret);
    expect(leakedSecrets([`{"msg":"oops ${secret}"}`])).toEqual(['gat_AAAA…(53 chars)']);
    expect(leakedSecrets(['{"msg":"clean"}'])).toEqual([]);
  });

  it('remembers secret-named fields and secret-shaped strings from bodies', () => {
    const before = secretsRemembered();
    rememberSecretsIn({
      data: [{ lock_token: 'glk-like-value-1' }],
      note: `whsec_${'b'.repeat(43)}=`,
    });
    expect(secretsRemembered()).toBe(before + 2);
  });

  describe('a working session of an integration', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ LOG_LEVEL: 'trace' });
    });
    afterAll(async () => {
      // close() fails the file when any remembered secret reached the captured logs
      await t.close();
    });

    it('token, lock and webhook secrets pass through without reaching a log line', async () => {
      const caller = await createCaller(t.app);
      const token = await call(t.baseUrl, 'POST', '/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: caller.client.clientId,
          client_secret: caller.client.clientSecret,
        },
      });
      expect(token.status).toBe(200);
      const auth = `Bearer ${token.body.access_token as string}`;
      const { documentId } = await createLockableDocument(t.app, caller.tenantId);
      const lock = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth,
        body: {},
      });
      expect(lock.status).toBe(201);
      const staged = await call(t.baseUrl, 'POST', `/documents/${documentId}/external-revisions`, {
        auth,
        body: { content: { x: 1 } },
        headers: { 'lock-token': lock.body.lock_token as string },
      });
      expect(staged.status).toBe(201);
      const wrong = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
        auth,
        body: { lock_token: `${(lock.body.lock_token as string).slice(0, -1)}x` },
      });
      expect(wrong.status).toBe(409);
      expect(wrong.text).not.toContain(lock.body.lock_token as string);
      const webhook = await call(t.baseUrl, 'POST', '/webhooks', {
        auth,
        body: { name: 'hygiene', endpoint_url: 'https://example.invalid/hook', events: ['*'] },
      });
      expect(webhook.status).toBe(201);
      const list = await call(t.baseUrl, 'GET', '/webhooks', { auth });
      expect(list.text).not.toContain(webhook.body.secret as string);
      // an unexpected error is logged with its details; they must not carry request secrets either
      new Logger('test').log('a line that must stay clean');
      expect(t.logs.length).toBeGreaterThan(5);
      expect(leakedSecrets(t.logs)).toEqual([]);
    });
  });
});
