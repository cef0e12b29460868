import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { mintToken } from '../src/common/crypto/tokens.js';
import { startTestApp, type TestApp } from './support/app.js';
import { basicAuth, createPat } from './support/auth-factories.js';
import { withMessage } from './support/expect-message.js';
import { createCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createLockableDocument } from './support/lock-factories.js';
import { addProjectFile, createProject } from './support/read-factories.js';
import {
  leakedSecrets,
  rememberSecret,
  rememberSecretsIn,
  secretsRemembered,
  tampered,
} from './support/secrets.js';
import {
  createWebhook,
  deliveriesOf,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhook-factories.js';

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
        body: { lock_token: tampered(lock.body.lock_token as string) },
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
      // a failed query logged as an error must not carry its bound parameters
      const storage = 's3://hygiene-bucket/never-logged.pdf';
      rememberSecret(storage);
      const failed = Object.assign(new Error('insert failed'), {
        parameters: [storage],
        driverError: { parameters: [storage] },
        code: '23505',
      });
      new Logger('test').error({ err: failed }, 'query failed');
      expect(t.logs.join('\n')).toContain('insert failed');
      expect(t.logs.length).toBeGreaterThan(5);
      expect(leakedSecrets(t.logs)).toEqual([]);
    });
  });

  describe('a realistic session at LOG_LEVEL=trace, with the delivery worker running', () => {
    let t: TestApp;
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
      t = await startTestApp({ LOG_LEVEL: 'trace', WORKERS_ENABLED: 'true' });
    });
    afterAll(async () => {
      await receiver?.close();
      await t?.close();
    });

    it('answers every response that shows a secret with Cache-Control: no-store, and no other', async () => {
      const caller = await createCaller(t.app);
      const { clientId, clientSecret } = caller.client;
      const token = await call(t.baseUrl, 'POST', '/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        },
      });
      const created = await call(t.baseUrl, 'POST', '/webhooks', {
        auth: caller.auth,
        body: { name: 'no-store', endpoint_url: receiver.url('/no-store'), events: ['*'] },
      });
      const webhookId = created.body.webhookId as number;
      const rotated = await call(t.baseUrl, 'POST', `/webhooks/${webhookId}/secret/rotate`, {
        auth: caller.auth,
        body: {},
      });
      const { documentId } = await createLockableDocument(t.app, caller.tenantId);
      const lock = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth: caller.auth,
        body: {},
      });
      const shown: Array<[string, Awaited<ReturnType<typeof call>>, string]> = [
        ['token', token, 'access_token'],
        ['webhook', created, 'secret'],
        ['rotation', rotated, 'secret'],
        ['checkout', lock, 'lock_token'],
      ];
      for (const [what, res, field] of shown) {
        withMessage(`${what}: ${res.status} ${JSON.stringify([...res.headers])}`, () => {
          expect(res.status).toBeLessThan(300);
          expect(typeof res.body[field]).toBe('string');
          expect(res.headers.get('cache-control')).toBe('no-store');
          expect(res.headers.get('pragma')).toBe('no-cache');
        });
      }
      // a read of what holds no secret may be cached as usual
      const read = await call(t.baseUrl, 'GET', `/webhooks/${webhookId}`, { auth: caller.auth });
      expect(read.status).toBe(200);
      expect(read.headers.get('cache-control')).toBeNull();
    });

    it('no client secret, token, PAT, lock token, webhook secret, key or storage path reaches a log line', async () => {
      const caller = await createCaller(t.app);
      const { clientId, clientSecret } = caller.client;
      const grant = {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      };
      const viaJson = await call(t.baseUrl, 'POST', '/oauth/token', { body: grant });
      const viaForm = await call(t.baseUrl, 'POST', '/oauth/token', {
        rawBody: new URLSearchParams(grant).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      const viaBasic = await call(t.baseUrl, 'POST', '/oauth/token', {
        auth: basicAuth(clientId, clientSecret),
        body: { grant_type: 'client_credentials' },
      });
      for (const res of [viaJson, viaForm, viaBasic]) expect(res.status).toBe(200);
      const wrongSecret = mintToken('gcs');
      const refused = await call(t.baseUrl, 'POST', '/oauth/token', {
        body: { ...grant, client_secret: wrongSecret },
      });
      expect(refused.status).toBe(401);
      const auth = `Bearer ${viaForm.body.access_token as string}`;
      const pat = await createPat(t.app, caller.tenantId);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: pat.auth })).status).toBe(200);
      const forged = `Bearer ${mintToken('gpat')}`;
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: forged })).status).toBe(401);

      const projectId = await createProject(t.app, caller.tenantId);
      const storagePath = `s3://tenant-${caller.tenantId}-bucket/private/${randomUUID()}.pdf`;
      await addProjectFile(t.app, caller.tenantId, projectId, { storage_location: storagePath });
      const files = await call(t.baseUrl, 'GET', `/projects/${projectId}/files`, { auth });
      expect(files.status).toBe(200);
      expect(files.text).not.toContain(storagePath);

      const webhook = await createWebhook(t.baseUrl, auth, receiver.url('/hook'), ['*']);
      const { documentId } = await createLockableDocument(t.app, caller.tenantId);
      const lock = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth,
        body: {},
      });
      expect(lock.status).toBe(201);
      const lockToken = lock.body.lock_token as string;
      const blocked = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth: pat.auth,
        body: {},
      });
      expect(blocked.status).toBe(423);
      const staged = await call(t.baseUrl, 'POST', `/documents/${documentId}/external-revisions`, {
        auth: pat.auth,
        body: { content: { clause: 'all staff' }, source_reference: 'DMS-1' },
        headers: { 'lock-token': lockToken, 'idempotency-key': randomUUID() },
      });
      expect(staged.status).toBe(201);
      const wrongLock = mintToken('glk');
      const badCheckin = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
        auth,
        body: { lock_token: wrongLock },
      });
      expect(badCheckin.status).toBe(409);
      const checkin = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
        auth,
        body: { lock_token: lockToken },
      });
      expect(checkin.status).toBe(200);

      // the worker signs with the decrypted secret: deliveries, then a replay of one
      await waitFor(() => receiver.on('/hook').length >= 3, 10_000, 'three deliveries');
      const [first] = await deliveriesOf(t.app, webhook.webhookId);
      await waitFor(
        async () => (await deliveriesOf(t.app, webhook.webhookId))[0]!.status === 'succeeded',
      );
      await t.app
        .get(DataSource)
        .query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [first!.id]);
      const received = receiver.on('/hook').length;
      const replay = await call(t.baseUrl, 'POST', `/webhook-deliveries/${first!.id}/replay`, {
        auth,
      });
      expect(replay.status).toBe(200);
      await waitFor(() => receiver.on('/hook').length > received, 10_000, 'the replayed delivery');
      // a rotation: its answer carries the new secret, and the worker opens and signs with both
      const rotated = await call(
        t.baseUrl,
        'POST',
        `/webhooks/${webhook.webhookId}/secret/rotate`,
        { auth, body: { grace_period_seconds: 600 } },
      );
      expect(rotated.status).toBe(200);
      const tested = await call(t.baseUrl, 'POST', `/webhooks/${webhook.webhookId}/test`, { auth });
      expect(tested.status).toBe(202);
      await waitFor(
        () => receiver.on('/hook').some((r) => r.headers['webhook-id'] === tested.body.event_id),
        10_000,
        'the test event',
      );
      const paused = await call(t.baseUrl, 'POST', `/webhooks/${webhook.webhookId}/status`, {
        auth,
        body: { status: 'revoked' },
      });
      expect(paused.status).toBe(200);

      // every kind of secret of the session is remembered, so the check below covers it
      const kinds = {
        clientSecret,
        accessToken: viaForm.body.access_token as string,
        basicCredential: basicAuth(clientId, clientSecret).slice('Basic '.length),
        refusedSecret: wrongSecret,
        pat: pat.token,
        lockToken,
        wrongLockToken: wrongLock,
        webhookSecret: webhook.secret,
        rotatedWebhookSecret: rotated.body.secret as string,
        encryptionKey: t.config.WEBHOOK_SECRET_KEY!,
        storagePath,
      };
      for (const [kind, value] of Object.entries(kinds)) {
        withMessage(`${kind} is remembered`, () => expect(leakedSecrets([value])).toHaveLength(1));
      }
      // the session's requests were logged (at the most verbose level), and no line carries a secret
      expect(t.config.LOG_LEVEL).toBe('trace');
      for (const path of ['/api/v1/oauth/token', `/api/v1/documents/${documentId}/checkin`]) {
        expect(t.logs.some((l) => l.includes(`"path":"${path}"`))).toBe(true);
      }
      expect(t.logs.length).toBeGreaterThan(20);
      expect(leakedSecrets(t.logs)).toEqual([]);
    });
  });
});
