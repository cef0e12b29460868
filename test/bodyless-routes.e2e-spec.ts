import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller } from './support/factories.js';
import { call } from './support/http.js';
import { loadRouteTable, type Operation } from './support/route-table.js';
import { createWebhook, startReceiver, type Receiver } from './support/webhook-factories.js';

/**
 * A write route that takes no body refuses one with members (400, as unknown fields are refused
 * where there is a body), and lets none or `{}` through. Every such route of the published table.
 */
describe('write routes that take no body', () => {
  let t: TestApp;
  let auth: string;
  let receiver: Receiver;
  let bodyless: Operation[];
  let webhookId: number;
  beforeAll(async () => {
    t = await startTestApp();
    receiver = await startReceiver();
    const caller = await createCaller(t.app);
    auth = caller.auth;
    webhookId = (await createWebhook(t.baseUrl, auth, receiver.url('/bodyless'))).webhookId;
    bodyless = (await loadRouteTable(t.baseUrl)).filter(
      (op) => op.method !== 'GET' && op.method !== 'HEAD' && op.body === undefined,
    );
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const value = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.stringMatching(/^[ -~]{0,20}$/),
  );
  const path = (op: Operation) =>
    op.template.replace(/\{webhookId\}/g, String(webhookId)).replace(/\{[A-Za-z]+\}/g, '1');

  it('exist: the test event and the replay', () => {
    expect(bodyless.map((op) => `${op.method} ${op.template}`)).toEqual(
      expect.arrayContaining([
        'POST /webhooks/{webhookId}/test',
        'POST /webhook-deliveries/{deliveryId}/replay',
      ]),
    );
  });

  it('refuse any body with members: 400 validation_failed on body (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bodyless),
        // storable members (keys the edge refuses, like __proto__, have their own test)
        fc.oneof(
          fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), value, { minKeys: 1, maxKeys: 4 }),
          fc.array(value, { minLength: 1, maxLength: 3 }),
        ),
        async (op, body) => {
          const res = await call(t.baseUrl, op.method, path(op), { auth, body });
          withMessage(`${op.method} ${op.template} ${JSON.stringify(body)}`, () => {
            expect({ status: res.status, code: res.body?.code }).toEqual({
              status: 400,
              code: 'validation_failed',
            });
            expect(res.body.errors).toEqual([
              { field: 'body', message: 'this operation takes no body (send none, or {})' },
            ]);
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('let no body and {} through to the operation', async () => {
    for (const body of [undefined, {}]) {
      const res = await call(t.baseUrl, 'POST', `/webhooks/${webhookId}/test`, { auth, body });
      expect(res.status).toBe(202);
    }
    // an unknown delivery: the operation answers, not the body check
    const replay = await call(t.baseUrl, 'POST', '/webhook-deliveries/999999/replay', {
      auth,
      body: {},
    });
    expect(replay.status).toBe(404);
  });

  it('leave unknown routes to the 404, body or not', async () => {
    for (const target of ['', '/', '/no-such-route']) {
      const res = await call(t.baseUrl, 'POST', target, { auth, body: { a: 1 } });
      withMessage(`POST /api/v1${target}`, () =>
        expect({ status: res.status, code: res.body?.code }).toEqual({
          status: 404,
          code: 'not_found',
        }),
      );
    }
  });

  it('check the caller first: a body without a token is 401', async () => {
    const res = await call(t.baseUrl, 'POST', `/webhooks/${webhookId}/test`, { body: { x: 1 } });
    expect(res.status).toBe(401);
  });
});
