import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { RetentionSweeper } from '../src/modules/retention/retention-sweeper.js';
import { startTestApp, type TestApp } from './support/app.js';
import { call } from './support/http.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { waitFor } from './support/webhook-factories.js';

const GRACE_SECONDS = 600;
const EVENT_WINDOW_SECONDS = 3600;

type Row = Record<string, unknown>;

/** Owner-role SQL: the fixtures are rows of any age and state, as months of traffic leave them. */
function sql(t: TestApp, text: string, params: unknown[] = []): Promise<Row[]> {
  return t.app.get(DataSource).query(text, params);
}

async function token(
  t: TestApp,
  caller: TestCaller,
  expiresAgoSeconds: number,
  revokedAgoSeconds: number | null = null,
): Promise<number> {
  const [row] = await sql(
    t,
    `INSERT INTO access_tokens (tenant_id, api_client_id, token_digest, scopes, expires_at, revoked_at)
     VALUES ($1, $2, $3, '{}', now() - make_interval(secs => $4),
             CASE WHEN $5::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $5) END)
     RETURNING id`,
    [caller.tenantId, caller.client.id, randomBytes(32), expiresAgoSeconds, revokedAgoSeconds],
  );
  return Number(row?.['id']);
}

async function webhook(t: TestApp, tenantId: number): Promise<number> {
  const [row] = await sql(
    t,
    `INSERT INTO webhooks (tenant_id, name, endpoint_url, events, secret_sealed)
     VALUES ($1, 'retention', 'http://127.0.0.1:9/', '{*}', '\\x00') RETURNING id`,
    [tenantId],
  );
  return Number(row?.['id']);
}

/** An event `ageSeconds` old with one delivery per status given, each with one attempt. */
async function event(
  t: TestApp,
  tenantId: number,
  webhookId: number,
  ageSeconds: number,
  statuses: string[],
): Promise<{ eventId: number; deliveryIds: number[] }> {
  const [row] = await sql(
    t,
    `INSERT INTO events (event_id, tenant_id, type, payload, created_at)
     VALUES ($1, $2, 'document.checked_in', '{}', now() - make_interval(secs => $3)) RETURNING id`,
    [`evt_${randomBytes(8).toString('hex')}`, tenantId, ageSeconds],
  );
  const eventId = Number(row?.['id']);
  const deliveryIds: number[] = [];
  for (const status of statuses) {
    const [d] = await sql(
      t,
      `INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, status, attempts, created_at)
       VALUES ($1, $2, $3, $4, 1, now() - make_interval(secs => $5)) RETURNING id`,
      [tenantId, webhookId, eventId, status, ageSeconds],
    );
    const deliveryId = Number(d?.['id']);
    await sql(
      t,
      `INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, attempted_at, response_status, duration_ms)
       VALUES ($1, $2, now() - make_interval(secs => $3), 500, 3)`,
      [tenantId, deliveryId, ageSeconds],
    );
    deliveryIds.push(deliveryId);
  }
  return { eventId, deliveryIds };
}

async function exists(t: TestApp, table: string, ids: number[]): Promise<number[]> {
  const rows = await sql(t, `SELECT id FROM ${table} WHERE id = ANY($1::bigint[]) ORDER BY id`, [
    ids,
  ]);
  return rows.map((r) => Number(r['id']));
}

async function generation(t: TestApp): Promise<number> {
  const [row] = await sql(t, 'SELECT value FROM credential_generation');
  return Number(row?.['value']);
}

describe('retention (RETENTION_*)', () => {
  let t: TestApp;
  let caller: TestCaller;
  let sweeper: RetentionSweeper;

  beforeAll(async () => {
    t = await startTestApp({
      RETENTION_TOKEN_GRACE_SECONDS: String(GRACE_SECONDS),
      RETENTION_EVENT_SECONDS: String(EVENT_WINDOW_SECONDS),
      // small batches, so that several are needed and the limit per sweep shows
      RETENTION_BATCH_SIZE: '2',
      RETENTION_MAX_BATCHES: '50',
    });
    caller = await createCaller(t.app);
    sweeper = t.app.get(RetentionSweeper);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('deletes access tokens expired or revoked longer ago than the grace period, keeps the others', async () => {
    const expiredLongAgo = await token(t, caller, GRACE_SECONDS + 60);
    const expiredRecently = await token(t, caller, GRACE_SECONDS - 60);
    const live = await token(t, caller, -3600);
    const revokedLongAgo = await token(t, caller, -3600, GRACE_SECONDS + 60);
    const revokedRecently = await token(t, caller, -3600, GRACE_SECONDS - 60);
    const before = await generation(t);
    const removed = await sweeper.sweep();
    expect(removed.access_tokens).toBe(2);
    const all = [expiredLongAgo, expiredRecently, live, revokedLongAgo, revokedRecently];
    expect(await exists(t, 'access_tokens', all)).toEqual([expiredRecently, live, revokedRecently]);
    // dead tokens are not a credential change: no replica's cache is emptied for them
    expect(await generation(t)).toBe(before);
    // the caller's own token still works
    expect((await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth })).status).toBe(200);
  });

  it('still announces the deletion of a token that was live', async () => {
    const live = await token(t, caller, -3600);
    const before = await generation(t);
    await sql(t, 'DELETE FROM access_tokens WHERE id = $1', [live]);
    expect(await generation(t)).toBe(before + 1);
  });

  it('deletes old events with their finished deliveries and attempts, keeps young ones', async () => {
    const hook = await webhook(t, caller.tenantId);
    const old = await event(t, caller.tenantId, hook, EVENT_WINDOW_SECONDS + 60, [
      'succeeded',
      'failed',
      'cancelled',
    ]);
    const oldWithout = await event(t, caller.tenantId, hook, EVENT_WINDOW_SECONDS + 60, []);
    const young = await event(t, caller.tenantId, hook, EVENT_WINDOW_SECONDS - 60, ['succeeded']);
    const removed = await sweeper.sweep();
    expect(removed).toMatchObject({
      events: 2,
      webhook_deliveries: 3,
      webhook_delivery_attempts: 3,
    });
    expect(await exists(t, 'events', [old.eventId, oldWithout.eventId, young.eventId])).toEqual([
      young.eventId,
    ]);
    expect(
      await exists(t, 'webhook_deliveries', [...old.deliveryIds, ...young.deliveryIds]),
    ).toEqual(young.deliveryIds);
    const attempts = await sql(
      t,
      'SELECT delivery_id FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::bigint[])',
      [[...old.deliveryIds, ...young.deliveryIds]],
    );
    expect(attempts.map((a) => Number(a['delivery_id']))).toEqual(young.deliveryIds);
  });

  it('never deletes a pending delivery, nor its event, and is not held up by them', async () => {
    const hook = await webhook(t, caller.tenantId);
    const age = EVENT_WINDOW_SECONDS * 24 * 365;
    // more pending old events than a batch holds, and older than the deletable one
    const pending = [];
    for (const status of ['queued', 'retry', 'sending', 'queued', 'retry']) {
      pending.push(await event(t, caller.tenantId, hook, age, [status, 'succeeded']));
    }
    const deletable = await event(t, caller.tenantId, hook, EVENT_WINDOW_SECONDS + 60, ['failed']);
    await sweeper.sweep();
    const pendingEvents = pending.map((p) => p.eventId);
    expect(await exists(t, 'events', pendingEvents)).toEqual(pendingEvents);
    const pendingDeliveries = pending.flatMap((p) => p.deliveryIds);
    expect(await exists(t, 'webhook_deliveries', pendingDeliveries)).toEqual(pendingDeliveries);
    expect(await exists(t, 'events', [deletable.eventId])).toEqual([]);
    // finished, it goes at the next sweep
    await sql(
      t,
      `UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = ANY($1::bigint[])`,
      [pending[0]!.deliveryIds],
    );
    await sweeper.sweep();
    expect(await exists(t, 'events', pendingEvents)).toEqual(pendingEvents.slice(1));
  });

  it('never touches the audit log, however old', async () => {
    const [row] = await sql(
      t,
      `INSERT INTO audit_log (tenant_id, action, outcome, created_at)
       VALUES ($1, 'token.issue', 'success', now() - interval '10 years') RETURNING id`,
      [caller.tenantId],
    );
    const [before] = await sql(t, 'SELECT count(*)::int AS n FROM audit_log');
    await sweeper.sweep();
    const [after] = await sql(t, 'SELECT count(*)::int AS n FROM audit_log');
    expect(after?.['n']).toBe(before?.['n']);
    expect(await exists(t, 'audit_log', [Number(row?.['id'])])).toEqual([Number(row?.['id'])]);
  });

  it('counts the rows it deleted per table in /metrics', async () => {
    await token(t, caller, GRACE_SECONDS + 60);
    await sweeper.sweep();
    const metrics = await t.scrape();
    expect(metrics.text).toMatch(/retention_rows_deleted_total\{table="access_tokens"\} [1-9]/);
    expect(metrics.text).toMatch(/retention_rows_deleted_total\{table="events"\} [1-9]/);
  });
});

describe('retention, bounded per sweep and on a timer', () => {
  let t: TestApp;
  let caller: TestCaller;
  beforeAll(async () => {
    t = await startTestApp({
      WORKERS_ENABLED: 'true',
      RETENTION_TOKEN_GRACE_SECONDS: '0',
      RETENTION_BATCH_SIZE: '3',
      RETENTION_MAX_BATCHES: '1',
      RETENTION_INTERVAL_MS: '200',
    });
    caller = await createCaller(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('deletes at most RETENTION_BATCH_SIZE × RETENTION_MAX_BATCHES rows per table per sweep, and sweeps again', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await token(t, caller, 60));
    const removed = await t.app.get(RetentionSweeper).sweep();
    expect(removed.access_tokens).toBeLessThanOrEqual(3);
    // the timer takes the rest, a batch per sweep
    await waitFor(async () => (await exists(t, 'access_tokens', ids)).length === 0, 10_000);
  });
});
