import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { DESTINATION_UNAVAILABLE_MESSAGE } from '../src/modules/webhooks/delivery/webhook-sender.js';
import { DeliveryWorker } from '../src/modules/webhooks/delivery/delivery-worker.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import {
  createWebhook,
  deliveriesOf,
  publishEvents,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhook-factories.js';

const WORKER_ENV = {
  WORKERS_ENABLED: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
  // long enough that a 200 answer on a loaded machine is not timed out and sent again, which
  // tests that count attempts would see; the hanging receiver's test waits this long
  WEBHOOK_TIMEOUT_MS: '2000',
};

describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  let a: TestCaller;
  const secrets: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(WORKER_ENV);
    a = await createCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function hook(path: string, events: string[] = ['*'], caller = a) {
    const created = await createWebhook(t.baseUrl, caller.auth, receiver.url(path), events);
    secrets.push(created.secret);
    return created;
  }
  const setStatus = (webhookId: number, status: string, caller = a) =>
    call(t.baseUrl, 'POST', `/webhooks/${webhookId}/status`, {
      auth: caller.auth,
      body: { status },
    });
  const deliveryStatus = async (webhookId: number) =>
    (await deliveriesOf(t.app, webhookId)).map((d) => d.status);

  it('signs deliveries so that a Standard Webhooks library verifies them', async () => {
    const created = await hook('/signed', ['document.checked_in']);
    const [eventId] = await publishEvents(t.app, a.tenantId, 1, 'document.checked_in', () => ({
      documentId: 7,
      released_at: '2026-11-22T10:00:00.000Z',
    }));
    const [request] = await waitFor(
      () => receiver.on('/signed').length > 0 && receiver.on('/signed'),
    );

    const payload = new Webhook(created.secret).verify(request!.body, request!.headers);
    expect(payload).toEqual({
      id: eventId,
      type: 'document.checked_in',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      tenant_id: a.tenantId,
      data: { documentId: 7, released_at: '2026-11-22T10:00:00.000Z' },
    });
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(
      Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000),
    ).toBeLessThan(30);
    // a tampered body or another secret does not verify
    expect(() =>
      new Webhook(created.secret).verify(request!.body.replace('7', '8'), request!.headers),
    ).toThrow();
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(
        request!.body,
        request!.headers,
      ),
    ).toThrow();

    const [row] = await waitFor(async () => {
      const rows = await deliveriesOf(t.app, created.webhookId);
      return rows[0]?.status === 'succeeded' && rows;
    });
    expect(row).toMatchObject({ attempts: 1, last_response_status: 200, last_error: null });
    const attempts = await t.app
      .get(DataSource)
      .query(
        'SELECT response_status, error, duration_ms FROM webhook_delivery_attempts WHERE delivery_id = $1',
        [row!.id],
      );
    expect(attempts).toEqual([
      { response_status: 200, error: null, duration_ms: expect.any(Number) },
    ]);

    const listed = await call(t.baseUrl, 'GET', '/webhook-deliveries', { auth: a.auth });
    const view = listed.body.data.find((d: { event_id: string }) => d.event_id === eventId);
    expect(view).toMatchObject({
      webhookId: created.webhookId,
      status: 'succeeded',
      attempts: 1,
      last_response_status: 200,
      last_attempt_at: expect.any(String),
      next_attempt_at: null,
    });
  });

  it('holds deliveries while paused and sends them on re-activation', async () => {
    const created = await hook('/paused');
    await publishEvents(t.app, a.tenantId, 1);
    await waitFor(() => receiver.on('/paused').length === 1);
    expect((await setStatus(created.webhookId, 'paused')).status).toBe(200);

    const held = await publishEvents(t.app, a.tenantId, 2);
    await new Promise((r) => setTimeout(r, 700));
    expect(receiver.on('/paused')).toHaveLength(1);
    expect(await deliveryStatus(created.webhookId)).toEqual(['succeeded', 'queued', 'queued']);

    expect((await setStatus(created.webhookId, 'active')).status).toBe(200);
    await waitFor(() => receiver.on('/paused').length === 3, 5_000, 'held deliveries');
    expect(
      receiver
        .on('/paused')
        .slice(1)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...held].sort());
    await waitFor(async () =>
      (await deliveryStatus(created.webhookId)).every((s) => s === 'succeeded'),
    );
  });

  it('cancels pending deliveries on revocation and refuses to replay them', async () => {
    const created = await hook('/revoked');
    await setStatus(created.webhookId, 'paused');
    await publishEvents(t.app, a.tenantId, 2);
    expect((await setStatus(created.webhookId, 'revoked')).status).toBe(200);
    expect(await deliveryStatus(created.webhookId)).toEqual(['cancelled', 'cancelled']);

    await publishEvents(t.app, a.tenantId, 1);
    expect(await deliveryStatus(created.webhookId)).toHaveLength(2);

    const [row] = await deliveriesOf(t.app, created.webhookId);
    const replay = await call(t.baseUrl, 'POST', `/webhook-deliveries/${row!.id}/replay`, {
      auth: a.auth,
    });
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe('webhook_revoked');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on('/revoked')).toEqual([]);
  });

  it('retries a 500, fails after the schedule, and a replay delivers it with the same webhook-id', async () => {
    receiver.reply('/flaky', 500);
    const created = await hook('/flaky');
    const [eventId] = await publishEvents(t.app, a.tenantId);

    const [failed] = await waitFor(
      async () => {
        const rows = await deliveriesOf(t.app, created.webhookId);
        return rows[0]?.status === 'failed' && rows;
      },
      8_000,
      'failed delivery',
    );
    // schedule 100ms,100ms: two delays, three attempts
    expect(failed).toMatchObject({
      attempts: 3,
      last_response_status: 500,
      last_error: 'HTTP 500',
    });
    expect(receiver.on('/flaky').map((r) => r.headers['webhook-id'])).toEqual([
      eventId,
      eventId,
      eventId,
    ]);
    const attempts = await t.app
      .get(DataSource)
      .query('SELECT response_status FROM webhook_delivery_attempts WHERE delivery_id = $1', [
        failed!.id,
      ]);
    expect(attempts).toEqual([
      { response_status: 500 },
      { response_status: 500 },
      { response_status: 500 },
    ]);

    receiver.reply('/flaky', 204);
    const replay = await call(t.baseUrl, 'POST', `/webhook-deliveries/${failed!.id}/replay`, {
      auth: a.auth,
    });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ deliveryId: Number(failed!.id), status: 'queued' });

    await waitFor(() => receiver.on('/flaky').length === 4, 5_000, 'replayed delivery');
    const last = receiver.on('/flaky')[3]!;
    expect(last.headers['webhook-id']).toBe(eventId);
    expect(new Webhook(created.secret).verify(last.body, last.headers)).toMatchObject({
      id: eventId,
    });
    const [done] = await waitFor(async () => {
      const rows = await deliveriesOf(t.app, created.webhookId);
      return rows[0]?.status === 'succeeded' && rows;
    });
    expect(done).toMatchObject({ attempts: 4, last_response_status: 204, last_error: null });

    const again = await call(t.baseUrl, 'POST', `/webhook-deliveries/${failed!.id}/replay`, {
      auth: a.auth,
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('delivery_not_replayable');
  });

  it('pauses the webhook on 410 Gone and holds its deliveries', async () => {
    receiver.reply('/gone', 410);
    const created = await hook('/gone');
    const [first] = await publishEvents(t.app, a.tenantId);

    await waitFor(
      async () => {
        const list = await call(t.baseUrl, 'GET', '/webhooks', { auth: a.auth });
        return (
          list.body.data.find((w: { webhookId: number }) => w.webhookId === created.webhookId)
            ?.status === 'paused'
        );
      },
      5_000,
      'webhook paused',
    );
    const listed = await call(t.baseUrl, 'GET', '/webhooks', { auth: a.auth });
    expect(
      listed.body.data.find((w: { webhookId: number }) => w.webhookId === created.webhookId),
    ).toMatchObject({ status: 'paused', status_reason: 'gone' });
    const [row] = await deliveriesOf(t.app, created.webhookId);
    expect(row).toMatchObject({ status: 'retry', attempts: 1, last_response_status: 410 });
    const [second] = await publishEvents(t.app, a.tenantId);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.on('/gone')).toHaveLength(1);

    receiver.reply('/gone', 200);
    expect((await setStatus(created.webhookId, 'active')).body.status_reason).toBeNull();
    await waitFor(() => receiver.on('/gone').length === 3, 5_000, 'held deliveries after 410');
    // both held deliveries, in either order (deliveries carry no ordering guarantee; they go out together)
    const held = receiver
      .on('/gone')
      .slice(1)
      .map((r) => r.headers['webhook-id']);
    expect(held.sort()).toEqual([first, second].sort());
  });

  it('gives up on a hanging receiver at the timeout', async () => {
    receiver.reply('/hang', 'hang');
    const created = await hook('/hang');
    await publishEvents(t.app, a.tenantId);
    const [row] = await waitFor(
      async () => {
        const rows = await deliveriesOf(t.app, created.webhookId);
        return rows[0]?.last_error ? rows : null;
      },
      8_000,
      'timed-out attempt',
    );
    expect(row!.last_error).toBe('timed out after 2000 ms');
    expect(row!.last_response_status).toBeNull();
    const [attempt] = await t.app
      .get(DataSource)
      .query(
        'SELECT duration_ms FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id LIMIT 1',
        [row!.id],
      );
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(1_950);
    expect(attempt.duration_ms).toBeLessThan(3_500);
    await setStatus(created.webhookId, 'revoked');
  });

  it("takes over a crashed worker's delivery once its lease expires, not before", async () => {
    const created = await hook('/crashed');
    await setStatus(created.webhookId, 'paused');
    const [eventId] = await publishEvents(t.app, a.tenantId, 2);
    const ds = t.app.get(DataSource);
    // as if another worker had claimed both and died: one lease ran out, one is still live
    await ds.query(
      `UPDATE webhook_deliveries
          SET status = 'sending',
              lease_expires_at = CASE WHEN id = (SELECT min(id) FROM webhook_deliveries WHERE webhook_id = $1)
                                      THEN now() - interval '1 second'
                                      ELSE now() + interval '1 hour' END
        WHERE webhook_id = $1`,
      [created.webhookId],
    );
    await setStatus(created.webhookId, 'active');
    await waitFor(() => receiver.on('/crashed').length === 1, 5_000, 'expired lease taken over');
    expect(receiver.on('/crashed')[0]!.headers['webhook-id']).toBe(eventId);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.on('/crashed')).toHaveLength(1);
    expect(await deliveryStatus(created.webhookId)).toEqual(['succeeded', 'sending']);
  });

  it("never sends tenant A's events to tenant B's webhook", async () => {
    const b = await createCaller(t.app);
    const hookA = await hook('/tenant-a', ['*'], a);
    const hookB = await hook('/tenant-b', ['*'], b);
    const ids = await publishEvents(t.app, a.tenantId, 3);
    await waitFor(() => receiver.on('/tenant-a').length === 3, 5_000, "tenant A's deliveries");
    expect(
      receiver
        .on('/tenant-a')
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...ids].sort());
    expect(await deliveriesOf(t.app, hookB.webhookId)).toEqual([]);
    expect(receiver.on('/tenant-b')).toEqual([]);
    expect(hookA.webhookId).not.toBe(hookB.webhookId);
  });

  it('never writes a webhook secret to the log', () => {
    expect(secrets.length).toBeGreaterThan(5);
    const logs = t.logs.join('');
    for (const secret of secrets) expect(logs).not.toContain(secret.slice(6));
  });
});

describe('webhook delivery SSRF protection', () => {
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

  it('refuses loopback, private, link-local and IPv6 loopback destinations', async () => {
    const a = await createCaller(t.app);
    const urls = [
      receiver.url('/ssrf'),
      `http://localhost:${receiver.port}/ssrf`,
      'http://10.0.0.1/ssrf',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${receiver.port}/ssrf`,
    ];
    const hooks = [];
    for (const url of urls) hooks.push(await createWebhook(t.baseUrl, a.auth, url));
    await publishEvents(t.app, a.tenantId);

    for (const created of hooks) {
      const [row] = await waitFor(
        async () => {
          const rows = await deliveriesOf(t.app, created.webhookId);
          return rows[0]?.status === 'failed' && rows;
        },
        8_000,
        `refusal of ${String(created.endpoint_url)}`,
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

describe('two delivery workers on one database', () => {
  let one: TestApp;
  let two: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    // A generous time-out: an attempt timed out on a loaded machine is legitimately sent again
    // (at-least-once), which is not what this test is about.
    const env = {
      ...WORKER_ENV,
      WEBHOOK_TIMEOUT_MS: '15000',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '256',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    one = await startTestApp(env);
    two = await startTestApp(env, one.database);
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await receiver.close();
  });

  it('deliver 1,000 events exactly once each', async () => {
    const a = await createCaller(one.app);
    const created = await createWebhook(one.baseUrl, a.auth, receiver.url('/pair'), ['*']);
    // The receiver answers nothing until both processes have claimed. The first claim takes at
    // most its tenant's share of one process (32 chains), a chain asks for more rows only after
    // its first answer, and a full share claims no more: so the other process always finds rows
    // due on its next wake-up (a notification or its 1 s poll), however loaded the machine.
    // Without the gate a chain could take the webhook's next rows before the other one woke.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    receiver.reply('/pair', { status: 200, delayMs: 20, after: gate });
    const setStatus = async (status: string) =>
      expect(
        (
          await call(one.baseUrl, 'POST', `/webhooks/${created.webhookId}/status`, {
            auth: a.auth,
            body: { status },
          })
        ).status,
      ).toBe(200);
    // Held while paused, so all 1,000 are due at the same moment once it is active again.
    await setStatus('paused');
    const published: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const app = batch % 2 === 0 ? one.app : two.app;
      published.push(...(await publishEvents(app, a.tenantId, 100)));
    }
    expect(receiver.on('/pair')).toHaveLength(0);
    await setStatus('active');
    const worker = (t: TestApp) => t.app.get(DeliveryWorker).stats;
    await waitFor(
      () => worker(one).chains > 0 && worker(two).chains > 0,
      10_000,
      'both processes claim',
    ).finally(openGate);
    await waitFor(() => receiver.on('/pair').length >= 1_000, 25_000, '1,000 deliveries');
    await waitFor(
      async () => {
        const [row] = await one.app
          .get(DataSource)
          .query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'`,
            [created.webhookId],
          );
        return row.n === 1_000;
      },
      10_000,
      'all deliveries recorded',
    );

    const ids = receiver.on('/pair').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(1_000);
    expect(new Set(ids).size).toBe(1_000);
    expect([...ids].sort()).toEqual([...published].sort());
    const [attempts] = await one.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM webhook_delivery_attempts');
    expect(attempts.n).toBe(1_000);
    const sentByOne = one.app.get(DeliveryWorker).stats.attempts;
    const sentByTwo = two.app.get(DeliveryWorker).stats.attempts;
    expect(sentByOne + sentByTwo).toBe(1_000);
    expect(sentByOne).toBeGreaterThan(0);
    expect(sentByTwo).toBeGreaterThan(0);
  });
});
