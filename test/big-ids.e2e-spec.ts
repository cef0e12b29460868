import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';
import { createWebhook } from './support/webhook-factories.js';

/** Past 2^31: where an int32 id stops; 1,000 deliveries a second reach it within a month. */
const PAST_INT32 = 2 ** 31 + 10;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Deliveries and audit lines have `bigserial` ids: past 2^31 they are fetched, listed, replayed and
 * paged as any other, and carried as JSON integers the document types int64 (every `call()`
 * checks the answers against it). Past 2^53 - 1 a path id is 400.
 */
describe('bigserial ids past 2^31', () => {
  let t: TestApp;
  let caller: TestCaller;
  let key: TestPlatformKey;
  let db: DataSource;
  let deliveryId: number;

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app);
    key = await createPlatformKey(t.app, ['platform:audit']);
    db = t.app.get(DataSource);
    for (const table of ['webhook_deliveries', 'audit_log']) {
      await db.query(`SELECT setval(pg_get_serial_sequence($1, 'id'), $2)`, [table, PAST_INT32]);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a delivery past 2^31 is created, fetched, listed, its attempts read and replayed', async () => {
    const { webhookId } = await createWebhook(t.baseUrl, caller.auth, 'https://example.com/big');
    const sent = await call(t.baseUrl, 'POST', `/webhooks/${webhookId}/test`, {
      auth: caller.auth,
    });
    expect(sent.status).toBe(202);
    deliveryId = sent.body.deliveryId;
    expect(Number.isSafeInteger(deliveryId)).toBe(true);
    expect(deliveryId).toBeGreaterThan(PAST_INT32);
    // a JSON integer, not a string
    expect(sent.text).toContain(`"deliveryId":${deliveryId}`);

    const one = await call(t.baseUrl, 'GET', `/webhook-deliveries/${deliveryId}`, {
      auth: caller.auth,
    });
    expect(one.status).toBe(200);
    expect(one.body.deliveryId).toBe(deliveryId);
    expect(one.text).toContain(`"deliveryId":${deliveryId}`);

    const attempts = await call(t.baseUrl, 'GET', `/webhook-deliveries/${deliveryId}/attempts`, {
      auth: caller.auth,
    });
    expect(attempts.status).toBe(200);

    const list = await call(t.baseUrl, 'GET', `/webhook-deliveries?webhookId=${webhookId}`, {
      auth: caller.auth,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { deliveryId: number }) => d.deliveryId)).toEqual([deliveryId]);

    await db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [deliveryId]);
    const replayed = await call(t.baseUrl, 'POST', `/webhook-deliveries/${deliveryId}/replay`, {
      auth: caller.auth,
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual({ deliveryId, status: 'queued' });
  });

  it('audit lines past 2^31 are listed as JSON integers and paged by cursor', async () => {
    await t.app.get(AuditService).drain();
    const first = await platformCall(t, 'GET', `/audit?tenantId=${caller.tenantId}&limit=1`, {
      auth: key.auth,
    });
    expect(first.status).toBe(200);
    const [line] = first.body.data as Array<{ id: number; action: string; target: string }>;
    expect(line!.id).toBeGreaterThan(PAST_INT32);
    expect(first.text).toContain(`"id":${line!.id}`);
    expect(line).toMatchObject({ action: 'delivery.replay', target: `delivery:${deliveryId}` });
    expect(first.body.next_cursor).toEqual(expect.any(String));

    const next = await platformCall(
      t,
      'GET',
      `/audit?tenantId=${caller.tenantId}&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      { auth: key.auth },
    );
    expect(next.status).toBe(200);
    expect(next.body.data[0].id).toBeLessThan(line!.id);
    expect(next.body.data[0].id).toBeGreaterThan(PAST_INT32);
  });

  it('a deliveryId of 2^53 - 1 is looked up; past it, 400 on every delivery route', async () => {
    for (const suffix of ['', '/attempts', '/replay']) {
      const method = suffix === '/replay' ? 'POST' : 'GET';
      const last = await call(t.baseUrl, method, `/webhook-deliveries/${MAX_SAFE}${suffix}`, {
        auth: caller.auth,
      });
      expect(last.status).toBe(404);
      for (const past of [String(MAX_SAFE + 1), '99999999999999999']) {
        const res = await call(t.baseUrl, method, `/webhook-deliveries/${past}${suffix}`, {
          auth: caller.auth,
        });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
    }
  });

  it('a serial id stays int32: a webhookId past 2^31 - 1 is 400', async () => {
    const res = await call(t.baseUrl, 'GET', '/webhooks/2147483648', { auth: caller.auth });
    expect(res.status).toBe(400);
  });
});
