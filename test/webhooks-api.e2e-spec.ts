import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { WebhookOutbox } from '../src/modules/webhooks/outbox/webhook-outbox.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, issueToken, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createWebhook, deliveriesOf, publishEvents } from './support/webhook-factories.js';

const HOOK_URL = 'https://hooks.example.com/grc';

describe('webhooks API', () => {
  let t: TestApp;
  let a: TestCaller;
  beforeAll(async () => {
    // workers off: deliveries stay where the API puts them
    t = await startTestApp({ WEBHOOK_ALLOW_HTTP: 'false' });
    a = await createCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (path: string, body: unknown, auth = a.auth) =>
    call(t.baseUrl, 'POST', path, { auth, body });
  const get = (path: string, auth = a.auth) => call(t.baseUrl, 'GET', path, { auth });

  describe('POST /webhooks', () => {
    it('creates an active webhook and shows its secret once', async () => {
      const res = await post('/webhooks', {
        name: 'ERP',
        endpoint_url: HOOK_URL,
        events: ['external_revision.staged', 'document.version_created'],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        webhookId: expect.any(Number),
        name: 'ERP',
        endpoint_url: HOOK_URL,
        events: ['external_revision.staged', 'document.version_created'],
        status: 'active',
        status_reason: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: expect.any(String),
      });
      const secret = res.body.secret as string;
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);

      const list = await get('/webhooks');
      expect(list.status).toBe(200);
      const listed = list.body.data.find(
        (w: { webhookId: number }) => w.webhookId === res.body.webhookId,
      );
      const withoutSecret: Record<string, unknown> = { ...res.body };
      delete withoutSecret.secret;
      expect(listed).toEqual(withoutSecret);
      expect(list.text).not.toContain(secret);
      expect(list.text).not.toMatch(/secret/i);

      // stored sealed, never in clear; never logged
      const [row] = await t.app
        .get(DataSource)
        .query('SELECT secret_sealed FROM webhooks WHERE id = $1', [res.body.webhookId]);
      expect((row.secret_sealed as Buffer).toString('latin1')).not.toContain(secret.slice(6));
      expect(row.secret_sealed.length).toBeGreaterThan(29);
      expect(t.logs.join('')).not.toContain(secret.slice(6));
    });

    it('gives every webhook its own secret', async () => {
      const one = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const two = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      expect(one.secret).not.toBe(two.secret);
    });

    it('accepts * and removes duplicate event types', async () => {
      const res = await post('/webhooks', {
        name: 'all',
        endpoint_url: HOOK_URL,
        events: ['*', '*', 'document.checked_in'],
      });
      expect(res.status).toBe(201);
      expect(res.body.events).toEqual(['*', 'document.checked_in']);
    });

    it.each([
      ['missing name', { endpoint_url: HOOK_URL, events: ['*'] }, 'name'],
      ['empty name', { name: '', endpoint_url: HOOK_URL, events: ['*'] }, 'name'],
      ['blank name', { name: '   ', endpoint_url: HOOK_URL, events: ['*'] }, 'name'],
      [
        'name of 101 chars',
        { name: 'x'.repeat(101), endpoint_url: HOOK_URL, events: ['*'] },
        'name',
      ],
      ['name not a string', { name: 5, endpoint_url: HOOK_URL, events: ['*'] }, 'name'],
      ['missing endpoint_url', { name: 'n', events: ['*'] }, 'endpoint_url'],
      [
        'relative endpoint_url',
        { name: 'n', endpoint_url: '/hooks', events: ['*'] },
        'endpoint_url',
      ],
      ['not a URL', { name: 'n', endpoint_url: 'hooks example', events: ['*'] }, 'endpoint_url'],
      [
        'http when not allowed',
        { name: 'n', endpoint_url: 'http://hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'ftp',
        { name: 'n', endpoint_url: 'ftp://hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'user-info',
        { name: 'n', endpoint_url: 'https://user:pw@hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'user-info without password',
        { name: 'n', endpoint_url: 'https://user@hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'empty user-info',
        { name: 'n', endpoint_url: 'https://:@hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'a backslash before an @ (another host to an RFC 3986 reader)',
        { name: 'n', endpoint_url: 'https://hooks.example.com\\@evil.example/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'a percent-encoded host (another name once decoded)',
        { name: 'n', endpoint_url: 'https://hooks.example.com%2eevil.example/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'a control character the parser drops',
        { name: 'n', endpoint_url: 'https://hooks.example.com/x\u0001', events: ['*'] },
        'endpoint_url',
      ],
      [
        'no // after the scheme',
        { name: 'n', endpoint_url: 'https:hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'an empty host before the path',
        { name: 'n', endpoint_url: 'https:///hooks.example.com/', events: ['*'] },
        'endpoint_url',
      ],
      [
        'port 0',
        { name: 'n', endpoint_url: 'https://hooks.example.com:0/', events: ['*'] },
        'endpoint_url',
      ],
      ['missing events', { name: 'n', endpoint_url: HOOK_URL }, 'events'],
      ['empty events', { name: 'n', endpoint_url: HOOK_URL, events: [] }, 'events'],
      [
        'unknown event',
        { name: 'n', endpoint_url: HOOK_URL, events: ['document.deleted'] },
        'events',
      ],
      ['events not an array', { name: 'n', endpoint_url: HOOK_URL, events: '*' }, 'events'],
      [
        'unknown field',
        { name: 'n', endpoint_url: HOOK_URL, events: ['*'], secret: 'mine' },
        'secret',
      ],
    ])('refuses %s with 400 validation_failed', async (_label, body, field) => {
      const res = await post('/webhooks', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('accepts a name of exactly 100 characters', async () => {
      const res = await post('/webhooks', {
        name: 'x'.repeat(100),
        endpoint_url: HOOK_URL,
        events: ['*'],
      });
      expect(res.status).toBe(201);
    });
  });

  describe('authorization', () => {
    it('needs webhooks:write to create and webhooks:read to list', async () => {
      const reader = await createCaller(t.app, { scopes: ['webhooks:read'] });
      const create = await post(
        '/webhooks',
        { name: 'n', endpoint_url: HOOK_URL, events: ['*'] },
        reader.auth,
      );
      expect(create.status).toBe(403);
      expect(create.body.code).toBe('insufficient_scope');
      expect((await get('/webhooks', reader.auth)).status).toBe(200);

      const writer = await createCaller(t.app, { scopes: ['webhooks:write'] });
      const list = await get('/webhook-deliveries', writer.auth);
      expect(list.status).toBe(403);
      expect(list.body.code).toBe('insufficient_scope');
    });

    it('needs the api.webhooks entitlement', async () => {
      const pro = await createCaller(t.app, { plan: 'professional' });
      const res = await get('/webhooks', pro.auth);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('entitlement_required');
      const create = await post(
        '/webhooks',
        { name: 'n', endpoint_url: HOOK_URL, events: ['*'] },
        pro.auth,
      );
      expect(create.body.code).toBe('entitlement_required');
    });

    it('needs a token', async () => {
      expect((await call(t.baseUrl, 'GET', '/webhooks')).status).toBe(401);
    });
  });

  describe('POST /webhooks/{webhookId}/status', () => {
    it('follows the state machine, revoked being final', async () => {
      const hook = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const set = (status: string) => post(`/webhooks/${hook.webhookId}/status`, { status });

      const paused = await set('paused');
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({
        webhookId: hook.webhookId,
        status: 'paused',
        status_reason: 'manual',
      });
      expect(paused.body).not.toHaveProperty('secret');

      const again = await set('paused');
      expect(again.status).toBe(200);
      expect(again.body.status).toBe('paused');
      expect(again.body.updated_at).toBe(paused.body.updated_at);

      const active = await set('active');
      expect(active.body).toMatchObject({ status: 'active', status_reason: null });
      expect((await set('active')).status).toBe(200);
      expect((await set('revoked')).body).toMatchObject({
        status: 'revoked',
        status_reason: 'manual',
      });
      const revokedAgain = await set('revoked');
      expect(revokedAgain.status).toBe(200);
      expect(revokedAgain.body.status).toBe('revoked');

      for (const status of ['active', 'paused']) {
        const res = await set(status);
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('webhook_revoked');
      }
      const list = await get('/webhooks');
      expect(
        list.body.data.find((w: { webhookId: number }) => w.webhookId === hook.webhookId).status,
      ).toBe('revoked');
    });

    it('revokes straight from paused', async () => {
      const hook = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      await post(`/webhooks/${hook.webhookId}/status`, { status: 'paused' });
      const res = await post(`/webhooks/${hook.webhookId}/status`, { status: 'revoked' });
      expect(res.body.status).toBe('revoked');
    });

    it.each([
      ['an unknown status', { status: 'deleted' }],
      ['a missing status', {}],
      ['an unknown field', { status: 'paused', reason: 'x' }],
    ])('refuses %s with 400', async (_label, body) => {
      const hook = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const res = await post(`/webhooks/${hook.webhookId}/status`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it("answers 404 for an unknown webhook and for another tenant's", async () => {
      const b = await createCaller(t.app);
      const theirs = await createWebhook(t.baseUrl, b.auth, HOOK_URL);
      for (const id of [theirs.webhookId, 999_999]) {
        const res = await post(`/webhooks/${id}/status`, { status: 'paused' });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      expect((await post('/webhooks/abc/status', { status: 'paused' })).status).toBe(400);
      // untouched
      const list = await get('/webhooks', b.auth);
      expect(list.body.data[0].status).toBe('active');
    });
  });

  describe('deliveries', () => {
    it('fans an event out to subscribed active and paused webhooks, not revoked or unsubscribed', async () => {
      const c = await createCaller(t.app);
      const all = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['*']);
      const exact = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['document.checked_in']);
      const other = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['document.checked_out']);
      const paused = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['*']);
      const revoked = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['*']);
      await post(`/webhooks/${paused.webhookId}/status`, { status: 'paused' }, c.auth);
      await post(`/webhooks/${revoked.webhookId}/status`, { status: 'revoked' }, c.auth);

      const [eventId] = await publishEvents(t.app, c.tenantId);
      expect(eventId).toMatch(/^evt_[0-9A-Z]{26}$/);

      const res = await get('/webhook-deliveries', c.auth);
      expect(res.status).toBe(200);
      const byHook = new Map(res.body.data.map((d: { webhookId: number }) => [d.webhookId, d]));
      expect([...byHook.keys()].sort()).toEqual(
        [all.webhookId, exact.webhookId, paused.webhookId].sort(),
      );
      expect(byHook.get(other.webhookId)).toBeUndefined();
      expect(byHook.get(paused.webhookId)).toMatchObject({ status: 'queued', attempts: 0 });
      expect(byHook.get(all.webhookId)).toEqual({
        deliveryId: expect.any(Number),
        webhookId: all.webhookId,
        event_id: eventId,
        event_type: 'document.checked_in',
        status: 'queued',
        attempts: 0,
        last_attempt_at: null,
        next_attempt_at: expect.any(String),
        last_response_status: null,
        last_error: null,
        created_at: expect.any(String),
      });

      // one event, one envelope: every webhook gets the same id and body
      const [event] = await t.app
        .get(DataSource)
        .query('SELECT payload FROM events WHERE event_id = $1', [eventId]);
      expect(event.payload).toEqual({
        id: eventId,
        type: 'document.checked_in',
        timestamp: expect.stringMatching(/Z$/),
        tenant_id: c.tenantId,
        data: { documentId: 1, released_at: expect.any(String) },
      });
    });

    it('rolls the event and its deliveries back with the writing transaction', async () => {
      const c = await createCaller(t.app);
      await createWebhook(t.baseUrl, c.auth, HOOK_URL);
      const tx = t.app.get(TenantTransactions);
      await expect(
        tx.run(c.tenantId, async () => {
          await t.app.get(WebhookOutbox).publish(c.tenantId, 'document.checked_in', {
            documentId: 1,
            released_at: new Date().toISOString(),
          });
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect((await get('/webhook-deliveries', c.auth)).body.data).toEqual([]);
    });

    it('lists newest first and honours limit', async () => {
      const c = await createCaller(t.app);
      await createWebhook(t.baseUrl, c.auth, HOOK_URL);
      const ids = await publishEvents(t.app, c.tenantId, 3);
      const all = await get('/webhook-deliveries', c.auth);
      expect(all.body.data.map((d: { event_id: string }) => d.event_id)).toEqual(
        [...ids].reverse(),
      );
      const one = await get('/webhook-deliveries?limit=1', c.auth);
      expect(one.status).toBe(200);
      expect(one.body.data).toHaveLength(1);
      expect(one.body.data[0].event_id).toBe(ids[2]);
      expect((await get('/webhook-deliveries?limit=100', c.auth)).status).toBe(200);
    });

    it.each(['0', '101', 'abc', '1.5', '-1', ''])('refuses limit=%j with 400', async (limit) => {
      const res = await get(`/webhook-deliveries?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it("never lists another tenant's deliveries", async () => {
      const c = await createCaller(t.app);
      const d = await createCaller(t.app);
      await createWebhook(t.baseUrl, c.auth, HOOK_URL);
      await createWebhook(t.baseUrl, d.auth, HOOK_URL);
      await publishEvents(t.app, c.tenantId, 2);
      expect((await get('/webhook-deliveries', c.auth)).body.data).toHaveLength(2);
      expect((await get('/webhook-deliveries', d.auth)).body.data).toEqual([]);
    });

    it('revoking cancels pending deliveries and gives the webhook no new ones', async () => {
      const c = await createCaller(t.app);
      const hook = await createWebhook(t.baseUrl, c.auth, HOOK_URL);
      await publishEvents(t.app, c.tenantId, 2);
      const ds = t.app.get(DataSource);
      const [delivered] = await ds.query(
        `WITH u AS (
           UPDATE webhook_deliveries SET status = 'succeeded', attempts = 1
            WHERE id = (SELECT min(id) FROM webhook_deliveries WHERE webhook_id = $1) RETURNING id
         ) SELECT id FROM u`,
        [hook.webhookId],
      );
      await post(`/webhooks/${hook.webhookId}/status`, { status: 'revoked' }, c.auth);
      await publishEvents(t.app, c.tenantId, 1);
      const rows = await deliveriesOf(t.app, hook.webhookId);
      expect(rows.map((r) => [r.id, r.status])).toEqual([
        [delivered.id, 'succeeded'],
        [expect.any(String), 'cancelled'],
      ]);
      const listed = await get('/webhook-deliveries', c.auth);
      expect(listed.body.data.map((d: { status: string }) => d.status)).toEqual([
        'cancelled',
        'succeeded',
      ]);
      expect(listed.body.data[0].next_attempt_at).toBeNull();
    });
  });

  describe('POST /webhook-deliveries/{deliveryId}/replay', () => {
    async function setup(status: string) {
      const c = await createCaller(t.app);
      const hook = await createWebhook(t.baseUrl, c.auth, HOOK_URL);
      await publishEvents(t.app, c.tenantId);
      const [row] = await deliveriesOf(t.app, hook.webhookId);
      await t.app.get(DataSource).query(
        `UPDATE webhook_deliveries SET status = $2, attempts = 3, next_attempt_at = now() + interval '1 hour'
            WHERE id = $1`,
        [row!.id, status],
      );
      return { c, hook, deliveryId: Number(row!.id) };
    }

    it.each(['failed', 'retry'])('requeues a %s delivery', async (status) => {
      const { c, hook, deliveryId } = await setup(status);
      const res = await post(`/webhook-deliveries/${deliveryId}/replay`, undefined, c.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deliveryId, status: 'queued' });
      const [row] = await t.app
        .get(DataSource)
        .query(
          `SELECT status, attempts, next_attempt_at <= now() AS due FROM webhook_deliveries WHERE id = $1`,
          [deliveryId],
        );
      expect(row).toEqual({ status: 'queued', attempts: 3, due: true });
      expect(hook.webhookId).toBeGreaterThan(0);
    });

    it.each(['queued', 'sending', 'succeeded', 'cancelled'])(
      'refuses a %s delivery with 409 delivery_not_replayable',
      async (status) => {
        const { c, deliveryId } = await setup(status);
        const res = await post(`/webhook-deliveries/${deliveryId}/replay`, undefined, c.auth);
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('delivery_not_replayable');
      },
    );

    it('refuses any delivery of a revoked webhook with 409 webhook_revoked, checked first', async () => {
      const { c, hook, deliveryId } = await setup('failed');
      await post(`/webhooks/${hook.webhookId}/status`, { status: 'revoked' }, c.auth);
      const res = await post(`/webhook-deliveries/${deliveryId}/replay`, undefined, c.auth);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('webhook_revoked');

      const cancelled = await setup('cancelled');
      await post(
        `/webhooks/${cancelled.hook.webhookId}/status`,
        { status: 'revoked' },
        cancelled.c.auth,
      );
      const res2 = await post(
        `/webhook-deliveries/${cancelled.deliveryId}/replay`,
        undefined,
        cancelled.c.auth,
      );
      expect(res2.body.code).toBe('webhook_revoked');
    });

    it("answers 404 for an unknown delivery and another tenant's", async () => {
      const { deliveryId } = await setup('failed');
      const other = await createCaller(t.app);
      for (const id of [deliveryId, 999_999_999]) {
        const res = await post(`/webhook-deliveries/${id}/replay`, undefined, other.auth);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      const [row] = await t.app
        .get(DataSource)
        .query('SELECT status FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      expect(row.status).toBe('failed');
    });

    it('needs webhooks:write', async () => {
      const { c, deliveryId } = await setup('failed');
      const token = await issueToken(t.app, c.client, ['webhooks:read']);
      const res = await post(
        `/webhook-deliveries/${deliveryId}/replay`,
        undefined,
        `Bearer ${token}`,
      );
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    });
  });
});

// an app of its own, started after the one above is closed
describe('the per-tenant webhook limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_MAX_PER_TENANT: '3' });
  });
  afterAll(async () => {
    await limited.close();
  });
  const create = (auth: string) =>
    call(limited.baseUrl, 'POST', '/webhooks', {
      auth,
      body: { name: 'hook', endpoint_url: HOOK_URL, events: ['*'] },
    });

  it('refuses a webhook beyond WEBHOOK_MAX_PER_TENANT with 409; revoked ones do not count', async () => {
    const c = await createCaller(limited.app);
    const other = await createCaller(limited.app);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create(c.auth);
      expect(res.status).toBe(201);
      ids.push(res.body.webhookId as number);
    }
    const refused = await create(c.auth);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({
      code: 'webhook_limit_reached',
      status: 409,
      detail: expect.stringContaining('3'),
    });
    expect(refused.text).not.toMatch(/whsec_/);
    // a paused webhook still counts; another tenant has its own allowance
    await call(limited.baseUrl, 'POST', `/webhooks/${ids[0]}/status`, {
      auth: c.auth,
      body: { status: 'paused' },
    });
    expect((await create(c.auth)).status).toBe(409);
    expect((await create(other.auth)).status).toBe(201);

    await call(limited.baseUrl, 'POST', `/webhooks/${ids[1]}/status`, {
      auth: c.auth,
      body: { status: 'revoked' },
    });
    expect((await create(c.auth)).status).toBe(201);
    expect((await create(c.auth)).status).toBe(409);
    const [{ n }] = await limited.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = $1`, [c.tenantId]);
    expect(n).toBe(4);
  });

  it('holds under concurrent creations', async () => {
    const c = await createCaller(limited.app);
    const responses = await Promise.all(Array.from({ length: 10 }, () => create(c.auth)));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(7);
    const [{ n }] = await limited.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = $1`, [c.tenantId]);
    expect(n).toBe(3);
  });
});
