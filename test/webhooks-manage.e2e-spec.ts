import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { DESTINATION_UNAVAILABLE_MESSAGE } from '../src/modules/webhooks/delivery/webhook-sender.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import {
  createWebhook,
  deliveriesOf,
  publishEvents,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhook-factories.js';

/**
 * Issue 20 items 1-3: GET and PATCH of one webhook, secret rotation with a grace period, and the
 * test event.
 */
const HOOK_URL = 'https://hooks.example.com/grc';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface WebhookRow {
  name: string;
  endpoint_url: string;
  events: string[];
  status: string;
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
  updated_at: Date;
}

async function webhookRow(t: TestApp, webhookId: number): Promise<WebhookRow> {
  const [row] = await t.app.get(DataSource).query(
    `SELECT name, endpoint_url, events, status, secret_sealed, previous_secret_sealed,
            previous_secret_expires_at, consecutive_failures, failing_since, updated_at
       FROM webhooks WHERE id = $1`,
    [webhookId],
  );
  return row as WebhookRow;
}

interface AuditLine {
  action: string;
  target: string;
  outcome: string;
  detail: string | null;
}

async function auditOf(t: TestApp, tenantId: number, action: string): Promise<AuditLine[]> {
  await t.app.get(AuditService).drain();
  return t.app
    .get(DataSource)
    .query<AuditLine[]>(
      `SELECT action, target, outcome, detail FROM audit_log WHERE tenant_id = $1 AND action = $2 ORDER BY id`,
      [tenantId, action],
    );
}

describe('webhooks: one webhook, edited, rotated and tested (API)', () => {
  let t: TestApp;
  let a: TestCaller;
  beforeAll(async () => {
    // workers off: deliveries stay where the API puts them
    t = await startTestApp({ WEBHOOK_ALLOW_HTTP: 'false' });
    a = await createCaller(t.app);
  });
  afterAll(async () => {
    // fails the file if any secret seen in a response reached a log line
    await t.close();
  });

  const req = (method: string, path: string, body?: unknown, auth = a.auth) =>
    call(t.baseUrl, method, path, { auth, body });

  describe('GET /webhooks/{webhookId}', () => {
    it('answers the webhook as listed, never its secret', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL, ['document.checked_in']);
      const res = await req('GET', `/webhooks/${created.webhookId}`);
      expect(res.status).toBe(200);
      const { secret, ...withoutSecret } = created;
      expect(res.body).toEqual(withoutSecret);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toMatch(/secret/i);
      const list = await req('GET', '/webhooks');
      expect(
        list.body.data.find((w: { webhookId: number }) => w.webhookId === created.webhookId),
      ).toEqual(res.body);
    });

    it("answers 404 for an unknown webhook and another tenant's, 400 for a bad id", async () => {
      const b = await createCaller(t.app);
      const theirs = await createWebhook(t.baseUrl, b.auth, HOOK_URL);
      for (const id of [theirs.webhookId, 999_999]) {
        const res = await req('GET', `/webhooks/${id}`);
        expect({ status: res.status, code: res.body.code }).toEqual({
          status: 404,
          code: 'not_found',
        });
      }
      for (const id of ['abc', '0', '-1', '1.5']) {
        expect((await req('GET', `/webhooks/${id}`)).status).toBe(400);
      }
    });
  });

  describe('PATCH /webhooks/{webhookId}', () => {
    it('changes only the fields given, and is audited', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL, ['document.checked_in']);
      const before = await webhookRow(t, created.webhookId);
      await new Promise((r) => setTimeout(r, 5));

      const renamed = await req('PATCH', `/webhooks/${created.webhookId}`, { name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({
        ...created,
        secret: undefined,
        name: 'Renamed',
        updated_at: expect.stringMatching(ISO),
      });
      expect(renamed.body).not.toHaveProperty('secret');
      expect(renamed.body.updated_at).not.toBe(created.updated_at);

      const moved = await req('PATCH', `/webhooks/${created.webhookId}`, {
        endpoint_url: 'https://other.example.com/x?y=1',
        events: ['*', 'document.checked_out', '*'],
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({
        name: 'Renamed',
        endpoint_url: 'https://other.example.com/x?y=1',
        events: ['*', 'document.checked_out'],
        status: 'active',
      });
      expect((await req('GET', `/webhooks/${created.webhookId}`)).body).toEqual(moved.body);

      // the same values again: nothing changes, updated_at included
      const same = await req('PATCH', `/webhooks/${created.webhookId}`, {
        name: 'Renamed',
        events: ['*', 'document.checked_out'],
      });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(moved.body);

      // the secret is not touched by an edit
      const after = await webhookRow(t, created.webhookId);
      expect(after.secret_sealed.equals(before.secret_sealed)).toBe(true);

      expect(await auditOf(t, a.tenantId, 'webhook.update')).toEqual(
        expect.arrayContaining([
          {
            action: 'webhook.update',
            target: `webhook:${created.webhookId}`,
            outcome: 'success',
            detail: null,
          },
        ]),
      );
    });

    it.each([
      ['an empty body', {}, 'body'],
      ['a null name', { name: null }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['a name of 101 chars', { name: 'x'.repeat(101) }, 'name'],
      ['a null endpoint_url', { endpoint_url: null }, 'endpoint_url'],
      ['a relative endpoint_url', { endpoint_url: '/hooks' }, 'endpoint_url'],
      [
        'an http endpoint_url when not allowed',
        { endpoint_url: 'http://h.example.com/' },
        'endpoint_url',
      ],
      ['an ftp endpoint_url', { endpoint_url: 'ftp://h.example.com/' }, 'endpoint_url'],
      [
        'an endpoint_url with user-info',
        { endpoint_url: 'https://u:p@h.example.com/' },
        'endpoint_url',
      ],
      [
        'an endpoint_url of 2049 chars',
        { endpoint_url: `https://h.example.com/${'a'.repeat(2027)}` },
        'endpoint_url',
      ],
      ['empty events', { events: [] }, 'events'],
      ['null events', { events: null }, 'events'],
      ['an unknown event type', { events: ['document.deleted'] }, 'events'],
      ['webhook.test as a subscription', { events: ['webhook.test'] }, 'events'],
      ['events not an array', { events: '*' }, 'events'],
      ['a status (its own route)', { name: 'n', status: 'paused' }, 'status'],
      ['a secret', { name: 'n', secret: 'whsec_mine' }, 'secret'],
      ['an unknown field', { name: 'n', colour: 'blue' }, 'colour'],
    ])('refuses %s with 400 validation_failed, changing nothing', async (_label, body, field) => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const before = await webhookRow(t, created.webhookId);
      const res = await req('PATCH', `/webhooks/${created.webhookId}`, body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await webhookRow(t, created.webhookId)).toEqual(before);
    });

    it('refuses a body that is not a JSON object', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      for (const rawBody of ['[]', '"name"', 'null', '{']) {
        const res = await call(t.baseUrl, 'PATCH', `/webhooks/${created.webhookId}`, {
          auth: a.auth,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expect({ body: rawBody, status: res.status }).toEqual({ body: rawBody, status: 400 });
      }
    });

    it("answers 404 for an unknown webhook and another tenant's, leaving theirs unchanged", async () => {
      const b = await createCaller(t.app);
      const theirs = await createWebhook(t.baseUrl, b.auth, HOOK_URL);
      const before = await webhookRow(t, theirs.webhookId);
      for (const id of [theirs.webhookId, 999_999]) {
        const res = await req('PATCH', `/webhooks/${id}`, { name: 'mine now' });
        expect({ status: res.status, code: res.body.code }).toEqual({
          status: 404,
          code: 'not_found',
        });
      }
      expect(await webhookRow(t, theirs.webhookId)).toEqual(before);
    });
  });

  describe('POST /webhooks/{webhookId}/secret/rotate', () => {
    it('mints a new secret shown once, keeps the old one sealed for 24 h by default, and is audited', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const before = await webhookRow(t, created.webhookId);
      const startedAt = Date.now();
      // no body at all: the default grace
      const res = await call(t.baseUrl, 'POST', `/webhooks/${created.webhookId}/secret/rotate`, {
        auth: a.auth,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        webhookId: created.webhookId,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        previous_secret_expires_at: expect.stringMatching(ISO),
      });
      const secret = res.body.secret as string;
      expect(secret).not.toBe(created.secret);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      const expiresAt = Date.parse(res.body.previous_secret_expires_at as string);
      expect(expiresAt - startedAt).toBeGreaterThan(86_400_000 - 5_000);
      expect(expiresAt - startedAt).toBeLessThan(86_400_000 + 5_000);

      const after = await webhookRow(t, created.webhookId);
      // the old sealed secret moved aside unchanged; the new one is sealed, never in clear
      expect(after.previous_secret_sealed!.equals(before.secret_sealed)).toBe(true);
      expect(after.previous_secret_expires_at!.getTime()).toBe(expiresAt);
      expect(after.secret_sealed.equals(before.secret_sealed)).toBe(false);
      expect(after.secret_sealed.toString('latin1')).not.toContain(secret.slice(6));

      // never again: not in the webhook, the list or the audit trail
      const got = await req('GET', `/webhooks/${created.webhookId}`);
      expect(got.text).not.toContain(secret);
      expect((await req('GET', '/webhooks')).text).not.toContain(secret);
      const audit = await auditOf(t, a.tenantId, 'webhook.rotate_secret');
      expect(audit).toEqual([
        {
          action: 'webhook.rotate_secret',
          target: `webhook:${created.webhookId}`,
          outcome: 'success',
          detail: null,
        },
      ]);
      expect(t.logs.join('')).not.toContain(secret.slice(6));
    });

    it('takes grace_period_seconds 0..604800; 0 keeps no old secret', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const path = `/webhooks/${created.webhookId}/secret/rotate`;
      const week = await req('POST', path, { grace_period_seconds: 604_800 });
      expect(week.status).toBe(200);
      expect(
        Date.parse(week.body.previous_secret_expires_at as string) - Date.now(),
      ).toBeGreaterThan(604_800_000 - 5_000);
      const now = await req('POST', path, { grace_period_seconds: 0 });
      expect(now.status).toBe(200);
      expect(
        Math.abs(Date.parse(now.body.previous_secret_expires_at as string) - Date.now()),
      ).toBeLessThan(5_000);
      const row = await webhookRow(t, created.webhookId);
      expect(row.previous_secret_sealed).toBeNull();
      expect(row.previous_secret_expires_at).toBeNull();
    });

    it('answers any integer grace by its range: 0..604800 rotates with that expiry, others are 400', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const path = `/webhooks/${created.webhookId}/secret/rotate`;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.integer({ min: -2_000_000, max: 2_000_000 }),
            fc.constantFrom(-1, 0, 1, 604_799, 604_800, 604_801, Number.MAX_SAFE_INTEGER),
          ),
          async (grace) => {
            const before = await webhookRow(t, created.webhookId);
            const startedAt = Date.now();
            const res = await req('POST', path, { grace_period_seconds: grace });
            if (grace < 0 || grace > 604_800) {
              expect({ grace, status: res.status }).toEqual({ grace, status: 400 });
              expect(await webhookRow(t, created.webhookId)).toEqual(before);
              return;
            }
            expect({ grace, status: res.status }).toEqual({ grace, status: 200 });
            const expiresAt = Date.parse(res.body.previous_secret_expires_at as string);
            expect(Math.abs(expiresAt - startedAt - grace * 1000)).toBeLessThan(5_000);
            const after = await webhookRow(t, created.webhookId);
            // the secret it replaced is kept exactly when there is a grace
            expect(after.previous_secret_sealed?.equals(before.secret_sealed) ?? null).toBe(
              grace > 0 ? true : null,
            );
          },
        ),
        { numRuns: 60 },
      );
    });

    it.each([
      ['a negative grace', { grace_period_seconds: -1 }],
      ['a grace over 7 days', { grace_period_seconds: 604_801 }],
      ['a fractional grace', { grace_period_seconds: 1.5 }],
      ['a grace as a string', { grace_period_seconds: '60' }],
      ['a null grace', { grace_period_seconds: null }],
      ['an unknown field', { grace_period_seconds: 60, secret: 'whsec_mine' }],
    ])('refuses %s with 400, rotating nothing', async (_label, body) => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      const before = await webhookRow(t, created.webhookId);
      const res = await req('POST', `/webhooks/${created.webhookId}/secret/rotate`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.text).not.toMatch(/whsec_/);
      expect(await webhookRow(t, created.webhookId)).toEqual(before);
    });
  });

  describe('POST /webhooks/{webhookId}/test', () => {
    it('queues a webhook.test event for that webhook only, whatever its events, listed with the deliveries', async () => {
      const c = await createCaller(t.app);
      const target = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['document.checked_in']);
      const other = await createWebhook(t.baseUrl, c.auth, HOOK_URL, ['*']);
      const res = await req('POST', `/webhooks/${target.webhookId}/test`, undefined, c.auth);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        deliveryId: expect.any(Number),
        event_id: expect.stringMatching(/^evt_/),
      });
      expect(await deliveriesOf(t.app, other.webhookId)).toEqual([]);
      const [delivery, ...more] = await deliveriesOf(t.app, target.webhookId);
      expect(more).toEqual([]);
      expect(delivery).toMatchObject({
        id: String(res.body.deliveryId),
        status: 'queued',
        event_id: res.body.event_id,
      });
      const [event] = await t.app
        .get(DataSource)
        .query(`SELECT tenant_id, type, payload FROM events WHERE event_id = $1`, [
          res.body.event_id,
        ]);
      expect(event).toEqual({
        tenant_id: c.tenantId,
        type: 'webhook.test',
        payload: {
          id: res.body.event_id,
          type: 'webhook.test',
          timestamp: expect.stringMatching(ISO),
          tenant_id: c.tenantId,
          data: { webhookId: target.webhookId },
        },
      });
      const listed = await req('GET', '/webhook-deliveries', undefined, c.auth);
      expect(listed.body.data).toEqual([
        expect.objectContaining({
          deliveryId: res.body.deliveryId,
          webhookId: target.webhookId,
          event_id: res.body.event_id,
          event_type: 'webhook.test',
          status: 'queued',
        }),
      ]);
      expect(await auditOf(t, c.tenantId, 'webhook.test')).toEqual([
        {
          action: 'webhook.test',
          target: `webhook:${target.webhookId}`,
          outcome: 'success',
          detail: null,
        },
      ]);
    });

    it('queues a held delivery for a paused webhook', async () => {
      const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
      await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'paused' });
      const res = await req('POST', `/webhooks/${created.webhookId}/test`);
      expect(res.status).toBe(202);
      expect((await deliveriesOf(t.app, created.webhookId)).map((d) => d.status)).toEqual([
        'queued',
      ]);
    });

    it("answers 404 for an unknown webhook and another tenant's, queueing nothing", async () => {
      const b = await createCaller(t.app);
      const theirs = await createWebhook(t.baseUrl, b.auth, HOOK_URL);
      for (const id of [theirs.webhookId, 999_999]) {
        const res = await req('POST', `/webhooks/${id}/test`);
        expect({ status: res.status, code: res.body.code }).toEqual({
          status: 404,
          code: 'not_found',
        });
      }
      expect(await deliveriesOf(t.app, theirs.webhookId)).toEqual([]);
    });
  });

  it('answers 409 webhook_revoked to a PATCH, a rotation and a test event of a revoked webhook, changing nothing', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'revoked' });
    const before = await webhookRow(t, created.webhookId);
    for (const [method, path, body] of [
      ['PATCH', `/webhooks/${created.webhookId}`, { name: 'again' }],
      ['POST', `/webhooks/${created.webhookId}/secret/rotate`, {}],
      ['POST', `/webhooks/${created.webhookId}/test`, undefined],
    ] as const) {
      const res = await req(method, path, body);
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 409,
        code: 'webhook_revoked',
      });
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    expect(await webhookRow(t, created.webhookId)).toEqual(before);
    expect(await deliveriesOf(t.app, created.webhookId)).toEqual([]);
    // the refusals are audited as failures
    const refused = await auditOf(t, a.tenantId, 'webhook.rotate_secret');
    expect(refused).toContainEqual({
      action: 'webhook.rotate_secret',
      target: `webhook:${created.webhookId}`,
      outcome: 'failure',
      detail: 'webhook_revoked',
    });
    // GET still answers it
    expect((await req('GET', `/webhooks/${created.webhookId}`)).body.status).toBe('revoked');
  });

  it('needs webhooks:read to read, webhooks:write to edit, rotate and test, and api.webhooks', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, HOOK_URL);
    const id = created.webhookId;
    const reader = await createCaller(t.app, { scopes: ['webhooks:read'] });
    const writer = await createCaller(t.app, { scopes: ['webhooks:write'] });
    const pro = await createCaller(t.app, { plan: 'professional' });
    const writes = [
      ['PATCH', `/webhooks/${id}`, { name: 'n' }],
      ['POST', `/webhooks/${id}/secret/rotate`, {}],
      ['POST', `/webhooks/${id}/test`, undefined],
    ] as const;
    for (const [method, path, body] of writes) {
      const res = await req(method, path, body, reader.auth);
      expect({ path, status: res.status, code: res.body.code, scope: res.body.scope }).toEqual({
        path,
        status: 403,
        code: 'insufficient_scope',
        scope: 'webhooks:write',
      });
      const plan = await req(method, path, body, pro.auth);
      expect({ path, code: plan.body.code }).toEqual({ path, code: 'entitlement_required' });
      expect((await call(t.baseUrl, method, path, { body })).status).toBe(401);
    }
    const read = await req('GET', `/webhooks/${id}`, undefined, writer.auth);
    expect({ status: read.status, code: read.body.code }).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect((await req('GET', `/webhooks/${id}`, undefined, pro.auth)).body.code).toBe(
      'entitlement_required',
    );
    // a malformed body without a credential is 401: the credential is checked first
    const noToken = await call(t.baseUrl, 'PATCH', `/webhooks/${id}`, {
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(noToken.status).toBe(401);
    expect(await deliveriesOf(t.app, id)).toEqual([]);
  });
});

const WORKER_ENV = {
  WORKERS_ENABLED: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
  WEBHOOK_TIMEOUT_MS: '1000',
};

describe('webhooks: rotation, test events and edits, delivered', () => {
  let t: TestApp;
  let receiver: Receiver;
  let a: TestCaller;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(WORKER_ENV);
    a = await createCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const req = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, method, path, { auth: a.auth, body });
  const rotate = async (webhookId: number, grace: number) => {
    const res = await req('POST', `/webhooks/${webhookId}/secret/rotate`, {
      grace_period_seconds: grace,
    });
    expect(res.status).toBe(200);
    return res.body as { secret: string; previous_secret_expires_at: string };
  };
  /** Whether a receiver holding only `secret` accepts `request` (the library's own check). */
  const verifies = (secret: string, request: ReceivedRequest): boolean => {
    try {
      new Webhook(secret).verify(request.body, request.headers);
      return true;
    } catch {
      return false;
    }
  };
  const arrived = (path: string, n: number, what = `${n} deliveries at ${path}`) =>
    waitFor(() => receiver.on(path).length >= n && receiver.on(path), 8_000, what);
  /**
   * The deliveries at `path` of these events, once each has arrived. By event, not by position:
   * an attempt that timed out on a loaded machine is legitimately sent again (at-least-once), so
   * an earlier event may arrive again among later ones.
   */
  const arrivedOf = (path: string, eventIds: string[]) =>
    waitFor(
      () => {
        const of = receiver.on(path).filter((r) => eventIds.includes(r.headers['webhook-id']!));
        return new Set(of.map((r) => r.headers['webhook-id'])).size === eventIds.length && of;
      },
      8_000,
      `${eventIds.length} events' deliveries at ${path}`,
    );

  it('during the grace period receivers with the old or the new secret alone both verify every delivery; after it only the new one', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/rotate'), ['*']);
    const old = created.secret;
    const before = await arrivedOf('/rotate', await publishEvents(t.app, a.tenantId, 2));
    for (const r of before) {
      expect(verifies(old, r)).toBe(true);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    }

    // long enough that the deliveries below are all claimed inside it, even on a slow machine
    const GRACE_SECONDS = 6;
    const rotated = await rotate(created.webhookId, GRACE_SECONDS);
    const fresh = rotated.secret;
    const published = await publishEvents(t.app, a.tenantId, 3);
    const tested = await req('POST', `/webhooks/${created.webhookId}/test`);
    expect(tested.status).toBe(202);
    const during = await arrivedOf('/rotate', [...published, tested.body.event_id as string]);
    expect(Date.now()).toBeLessThan(Date.parse(rotated.previous_secret_expires_at));
    for (const r of during) {
      const [first, second, ...rest] = r.headers['webhook-signature']!.split(' ');
      expect(rest).toEqual([]);
      expect(first).toBe(
        new Webhook(fresh).sign(
          r.headers['webhook-id']!,
          new Date(Number(r.headers['webhook-timestamp']) * 1000),
          r.body,
        ),
      );
      expect(second).toMatch(/^v1,/);
      expect({ old: verifies(old, r), fresh: verifies(fresh, r) }).toEqual({
        old: true,
        fresh: true,
      });
      expect(verifies(`whsec_${randomBytes(32).toString('base64')}`, r)).toBe(false);
    }

    const wait = Date.parse(rotated.previous_secret_expires_at) - Date.now() + 100;
    await new Promise((r) => setTimeout(r, Math.max(wait, 0)));
    const after = await arrivedOf('/rotate', await publishEvents(t.app, a.tenantId, 2));
    for (const r of after) {
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      expect({ old: verifies(old, r), fresh: verifies(fresh, r) }).toEqual({
        old: false,
        fresh: true,
      });
    }
  }, 30_000);

  it('a second rotation ends the older grace at once; a grace of 0 signs with the new secret only', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/twice'), ['*']);
    const first = created.secret;
    const second = (await rotate(created.webhookId, 3_600)).secret;
    const third = (await rotate(created.webhookId, 3_600)).secret;
    await publishEvents(t.app, a.tenantId, 2);
    for (const r of await arrived('/twice', 2)) {
      expect({
        first: verifies(first, r),
        second: verifies(second, r),
        third: verifies(third, r),
      }).toEqual({ first: false, second: true, third: true });
    }
    const fourth = (await rotate(created.webhookId, 0)).secret;
    await publishEvents(t.app, a.tenantId, 1);
    const [last] = (await arrived('/twice', 3)).slice(2);
    expect(last!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect({ third: verifies(third, last!), fourth: verifies(fourth, last!) }).toEqual({
      third: false,
      fourth: true,
    });
  });

  it('concurrent rotations serialise: a delivery verifies with the last two secrets only', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/racing'), ['*']);
    const secrets = (
      await Promise.all(Array.from({ length: 6 }, () => rotate(created.webhookId, 3_600)))
    ).map((r) => r.secret);
    expect(new Set(secrets).size).toBe(6);
    await publishEvents(t.app, a.tenantId, 1);
    const [r] = await arrived('/racing', 1);
    expect(r!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifies(created.secret, r!)).toBe(false);
    expect(secrets.filter((s) => verifies(s, r!))).toHaveLength(2);
  });

  it('delivers a test event signed like any other, whatever the events filter', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/test-event'), [
      'external_revision.accepted',
    ]);
    const res = await req('POST', `/webhooks/${created.webhookId}/test`);
    expect(res.status).toBe(202);
    const [request] = await arrived('/test-event', 1);
    expect(request!.headers['webhook-id']).toBe(res.body.event_id);
    expect(new Webhook(created.secret).verify(request!.body, request!.headers)).toEqual({
      id: res.body.event_id,
      type: 'webhook.test',
      timestamp: expect.stringMatching(ISO),
      tenant_id: a.tenantId,
      data: { webhookId: created.webhookId },
    });
    const [row] = await waitFor(async () => {
      const rows = await deliveriesOf(t.app, created.webhookId);
      return rows[0]?.status === 'succeeded' && rows;
    });
    expect(row).toMatchObject({ id: String(res.body.deliveryId), attempts: 1 });
  });

  it('retries a test event like any other, and holds it while the webhook is paused', async () => {
    receiver.reply('/test-retry', 500);
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/test-retry'));
    const res = await req('POST', `/webhooks/${created.webhookId}/test`);
    const [failed] = await waitFor(
      async () => {
        const rows = await deliveriesOf(t.app, created.webhookId);
        return rows[0]?.status === 'failed' && rows;
      },
      8_000,
      'failed test event',
    );
    // schedule 100ms,100ms: three attempts, one webhook-id
    expect(failed).toMatchObject({ attempts: 3, last_response_status: 500 });
    expect(receiver.on('/test-retry').map((r) => r.headers['webhook-id'])).toEqual([
      res.body.event_id,
      res.body.event_id,
      res.body.event_id,
    ]);

    receiver.reply('/test-retry', 200);
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'paused' });
    const held = await req('POST', `/webhooks/${created.webhookId}/test`);
    expect(held.status).toBe(202);
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.on('/test-retry')).toHaveLength(3);
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'active' });
    const [released] = (await arrived('/test-retry', 4)).slice(3);
    expect(released!.headers['webhook-id']).toBe(held.body.event_id);
  });

  it('sends pending deliveries to the new URL after a PATCH, at once, and only there', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/old-url'), ['*']);
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'paused' });
    const queued = await publishEvents(t.app, a.tenantId, 3);
    // one of them waiting out a long retry delay, the endpoint marked as failing
    const db = t.app.get(DataSource);
    const [retrying] = await deliveriesOf(t.app, created.webhookId);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'retry', attempts = 2,
              next_attempt_at = now() + interval '1 hour' WHERE id = $1`,
      [retrying!.id],
    );
    await db.query(
      `UPDATE webhooks SET consecutive_failures = 6, failing_since = now() - interval '1 hour'
        WHERE id = $1`,
      [created.webhookId],
    );

    const patched = await req('PATCH', `/webhooks/${created.webhookId}`, {
      endpoint_url: receiver.url('/new-url'),
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      endpoint_url: receiver.url('/new-url'),
      status: 'paused',
      status_reason: 'manual',
    });
    const row = await webhookRow(t, created.webhookId);
    expect({ failures: row.consecutive_failures, since: row.failing_since }).toEqual({
      failures: 0,
      since: null,
    });
    // still paused: nothing is sent until the status route re-activates it
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.on('/new-url')).toEqual([]);

    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'active' });
    const sent = await arrived('/new-url', 3, 'pending deliveries at the new URL');
    expect(sent.map((r) => r.headers['webhook-id']).sort()).toEqual([...queued].sort());
    for (const r of sent) expect(verifies(created.secret, r)).toBe(true);

    // and what is published now goes there too, while the webhook is active
    const [later] = await publishEvents(t.app, a.tenantId, 1);
    const [fourth] = (await arrived('/new-url', 4)).slice(3);
    expect(fourth!.headers['webhook-id']).toBe(later);
    expect(receiver.on('/old-url')).toEqual([]);
  });

  it('moves a delivery of an active webhook waiting out a retry delay to the new URL at once', async () => {
    const created = await createWebhook(t.baseUrl, a.auth, receiver.url('/broken'), ['*']);
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'paused' });
    const [eventId] = await publishEvents(t.app, a.tenantId, 1);
    // as if its first attempt had failed under a long retry schedule: the next is an hour away
    await t.app.get(DataSource).query(
      `UPDATE webhook_deliveries SET status = 'retry', attempts = 1, last_response_status = 503,
                next_attempt_at = now() + interval '1 hour'
          WHERE webhook_id = $1`,
      [created.webhookId],
    );
    // re-activation leaves a delivery that is not due where it is
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'active' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveriesOf(t.app, created.webhookId))[0]!.status).toBe('retry');

    const patched = await req('PATCH', `/webhooks/${created.webhookId}`, {
      endpoint_url: receiver.url('/fixed'),
    });
    expect(patched.status).toBe(200);
    const [sent] = await arrived('/fixed', 1, 'the retried delivery at the new URL');
    expect(sent!.headers['webhook-id']).toBe(eventId);
    const [done] = await waitFor(async () => {
      const rows = await deliveriesOf(t.app, created.webhookId);
      return rows[0]?.status === 'succeeded' && rows;
    });
    expect(done).toMatchObject({ attempts: 2, last_response_status: 200 });
    expect(receiver.on('/broken')).toEqual([]);
  });

  it('keeps the back-off and failure record when a PATCH writes the same URL differently', async () => {
    const url = receiver.url('/same');
    const created = await createWebhook(t.baseUrl, a.auth, url, ['*']);
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'paused' });
    await publishEvents(t.app, a.tenantId, 1);
    const db = t.app.get(DataSource);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'retry', attempts = 1,
              next_attempt_at = now() + interval '1 hour' WHERE webhook_id = $1`,
      [created.webhookId],
    );
    // re-activation clears the failure record: set it afterwards
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'active' });
    await db.query(
      `UPDATE webhooks SET consecutive_failures = 3, failing_since = now() WHERE id = $1`,
      [created.webhookId],
    );
    // the scheme and host in capitals: the same endpoint
    const respelled = url.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
    const patched = await req('PATCH', `/webhooks/${created.webhookId}`, {
      endpoint_url: respelled,
    });
    expect(patched.status).toBe(200);
    const [hook] = await db.query(
      `SELECT consecutive_failures, failing_since IS NOT NULL AS failing FROM webhooks WHERE id = $1`,
      [created.webhookId],
    );
    expect(hook).toEqual({ consecutive_failures: 3, failing: true });
    const [delivery] = await db.query(
      `SELECT next_attempt_at > now() + interval '50 minutes' AS waits
         FROM webhook_deliveries WHERE webhook_id = $1`,
      [created.webhookId],
    );
    expect(delivery).toEqual({ waits: true });
    await req('POST', `/webhooks/${created.webhookId}/status`, { status: 'revoked' });
  });
});

describe('webhooks: a URL set by PATCH passes the same SSRF rules at delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ ...WORKER_ENV, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses a loopback, private or metadata address given by PATCH', async () => {
    const a = await createCaller(t.app);
    const urls = [
      receiver.url('/ssrf'),
      `http://localhost:${receiver.port}/ssrf`,
      'http://10.0.0.1/ssrf',
      'http://169.254.169.254/latest/meta-data/',
    ];
    const hooks = [];
    for (const url of urls) {
      const created = await createWebhook(t.baseUrl, a.auth, 'https://hooks.example.com/start');
      await call(t.baseUrl, 'POST', `/webhooks/${created.webhookId}/status`, {
        auth: a.auth,
        body: { status: 'paused' },
      });
      const patched = await call(t.baseUrl, 'PATCH', `/webhooks/${created.webhookId}`, {
        auth: a.auth,
        body: { endpoint_url: url },
      });
      expect(patched.status).toBe(200);
      hooks.push(created);
    }
    await publishEvents(t.app, a.tenantId);
    for (const created of hooks) {
      await call(t.baseUrl, 'POST', `/webhooks/${created.webhookId}/status`, {
        auth: a.auth,
        body: { status: 'active' },
      });
    }
    for (const created of hooks) {
      const [row] = await waitFor(
        async () => {
          const rows = await deliveriesOf(t.app, created.webhookId);
          return rows[0]?.status === 'failed' && rows;
        },
        8_000,
        `refusal of webhook ${created.webhookId}`,
      );
      expect(row).toMatchObject({
        attempts: 3,
        last_response_status: null,
        last_error: DESTINATION_UNAVAILABLE_MESSAGE,
      });
    }
    expect(receiver.received).toEqual([]);
  });
});
