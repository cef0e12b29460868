import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  describeEvent,
  type RunningReceiver,
  startWebhookReceiver,
  type WebhookEvent,
} from '../examples/webhook-receiver.js';
import { freePort } from '../src/common/net/free-port.js';
import { payloadProblem } from './support/event-schemas.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createDocument, createProject } from './support/read-factories.js';
import {
  createWebhook,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhook-factories.js';

/** examples/webhook-receiver.ts receiving real, signed deliveries of the service. */
describe('examples/webhook-receiver.ts', () => {
  let t: TestApp;
  let a: TestCaller;
  let documentId: number;
  const receivers: Array<RunningReceiver | Receiver> = [];

  beforeAll(async () => {
    t = await startTestApp({
      WORKERS_ENABLED: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // a refused delivery is retried much later: one attempt per event in this test
      WEBHOOK_RETRY_SCHEDULE: '1h',
    });
    a = await createCaller(t.app);
    const projectId = await createProject(t.app, a.tenantId);
    ({ documentId } = await createDocument(t.app, a.tenantId, projectId));
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  const deliveries = async (webhookId: number) =>
    (await call(t.baseUrl, 'GET', '/webhook-deliveries', { auth: a.auth })).body.data.filter(
      (d: { webhookId: number }) => d.webhookId === webhookId,
    );

  async function checkoutAndIn(): Promise<void> {
    const out = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
      auth: a.auth,
    });
    expect(out.status).toBe(201);
    const back = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
      auth: a.auth,
      body: { lock_token: out.body.lock_token },
    });
    expect(back.status).toBe(200);
  }

  it('verifies real deliveries, and refuses those signed with another secret', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/grc`;
    const hook = await createWebhook(t.baseUrl, a.auth, url, ['document.checked_out']);
    // a second webhook to the same receiver: its deliveries carry another secret's signature
    const stranger = await createWebhook(t.baseUrl, a.auth, url, ['document.checked_in']);
    const handled: WebhookEvent[] = [];
    const receiver = await startWebhookReceiver({
      secret: hook.secret,
      port,
      onEvent: (event) => {
        handled.push(event);
      },
    });
    receivers.push(receiver);

    await checkoutAndIn();
    const [good] = await waitFor(async () => {
      const rows = await deliveries(hook.webhookId);
      return rows[0]?.status === 'succeeded' && rows;
    }, 10_000);
    const [bad] = await waitFor(async () => {
      const rows = await deliveries(stranger.webhookId);
      return rows[0]?.attempts === 1 && rows;
    }, 10_000);

    expect(good).toMatchObject({ last_response_status: 204, event_type: 'document.checked_out' });
    expect(handled).toHaveLength(1);
    expect(handled[0]).toMatchObject({
      id: good.event_id,
      type: 'document.checked_out',
      tenant_id: a.tenantId,
      data: { documentId },
    });
    expect(receiver.events).toEqual(handled);
    // the typed client's union narrows on `type`: the example reads the checkout's own fields
    const event = handled[0]!;
    expect(event.type === 'document.checked_out' && event.data.expires_at).toEqual(
      expect.stringMatching(/Z$/),
    );
    expect(describeEvent(event)).toBe(
      `document ${documentId} checked out until ${(event.data as { expires_at: string }).expires_at}`,
    );
    expect(payloadProblem(JSON.stringify(event))).toBeNull();
    // the receiver answered 401 and the service recorded it as a failed attempt, to be retried
    expect(bad).toMatchObject({ status: 'retry', last_response_status: 401 });
    expect(receiver.rejected).toBe(1);
  });

  it('refuses a tampered delivery and acknowledges a duplicate without handling it twice', async () => {
    // capture a real delivery byte for byte, then send it and altered copies to the example
    const tap = await startReceiver();
    receivers.push(tap);
    const hook = await createWebhook(t.baseUrl, a.auth, tap.url('/tap'), ['document.checked_in']);
    const receiver = await startWebhookReceiver({ secret: hook.secret });
    receivers.push(receiver);
    await checkoutAndIn();
    const [real] = await waitFor(() => tap.on('/tap').length > 0 && tap.on('/tap'), 10_000);
    if (!real) throw new Error('no delivery captured');
    const signed = {
      'webhook-id': real.headers['webhook-id'] ?? '',
      'webhook-timestamp': real.headers['webhook-timestamp'] ?? '',
      'webhook-signature': real.headers['webhook-signature'] ?? '',
    };
    expect(signed['webhook-signature']).toMatch(/^v1,/);

    const send = (body: string, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${receiver.port}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signed,
          ...headers,
        },
        body,
      });

    const tampered = real.body.replace(/"documentId":\s*\d+/, `"documentId": ${documentId + 1}`);
    expect(tampered).not.toBe(real.body);
    expect((await send(tampered)).status).toBe(401);
    expect((await send(real.body, { 'webhook-id': 'evt_forged' })).status).toBe(401);
    const stale = String(Number(signed['webhook-timestamp']) - 600);
    expect((await send(real.body, { 'webhook-timestamp': stale })).status).toBe(401);
    expect((await send(real.body, { 'webhook-signature': '' })).status).toBe(401);
    expect(receiver.rejected).toBe(4);
    expect(receiver.events).toHaveLength(0);

    expect((await send(real.body)).status).toBe(204);
    expect((await send(real.body)).status).toBe(200);
    expect(receiver.events).toHaveLength(1);
    expect(receiver.events[0]).toMatchObject({
      id: signed['webhook-id'],
      type: 'document.checked_in',
      data: { documentId },
    });
    expect(receiver.duplicates).toBe(1);
  });
});
