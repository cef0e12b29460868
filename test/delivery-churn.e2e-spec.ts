import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { createCaller } from './support/factories.js';
import {
  createWebhook,
  publishEvents,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhook-factories.js';

/**
 * Issue 39 item 6: a delivery's claim is a HOT update (no indexed column changes), so the churn
 * of the worker writes no index entries for it; the churn tables carry their own fillfactor and
 * autovacuum thresholds (migration 1764005030000-delivery-churn).
 */
const WEBHOOKS = 3;
const EVENTS = 150;

interface TableStats {
  n_tup_upd: string;
  n_tup_hot_upd: string;
}

describe('delivery churn', () => {
  let db: TestDatabase;
  let t: TestApp;
  let receiver: Receiver;
  let client: pg.Client;

  beforeAll(async () => {
    receiver = await startReceiver();
    // the database outlives the app: its statistics are read once the app's connections are gone
    db = await createTestDatabase();
    t = await startTestApp({ WORKERS_ENABLED: 'true' }, db);
    client = new pg.Client({ connectionString: db.directUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await t?.close().catch(() => {});
    await receiver?.close();
    await db?.drop();
  });

  it('claims deliveries with HOT updates: one non-HOT update per delivery at most', async () => {
    const a = await createCaller(t.app);
    for (let i = 0; i < WEBHOOKS; i++) {
      await createWebhook(t.baseUrl, a.auth, receiver.url(`/churn/${i}`));
    }
    // several batches: claims then meet rows both alone and in chains
    for (let batch = 0; batch < 3; batch++) {
      await publishEvents(t.app, a.tenantId, EVENTS / 3);
    }
    const deliveries = WEBHOOKS * EVENTS;
    const ds = t.app.get(DataSource);
    await waitFor(
      async () => {
        const [row] = await ds.query<{ n: string }[]>(
          `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'`,
        );
        return Number(row!.n) === deliveries;
      },
      60_000,
      'every delivery to succeed',
    );
    // the app's backends flush their table statistics as they exit
    await t.close();

    const stats = await waitFor(
      async () => {
        await client.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await client.query<TableStats>(
          `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
            WHERE relname = 'webhook_deliveries'`,
        );
        const upd = Number(rows[0]!.n_tup_upd);
        // a claim and a result per delivery (a chain's row handed back unsent adds two more)
        return upd >= 2 * deliveries && { upd, hot: Number(rows[0]!.n_tup_hot_upd) };
      },
      30_000,
      "the app's update statistics",
    );
    // Only the result leaves the pending index (`pending` changes): every other update is HOT
    // unless its page is full. Before the migration no update was HOT (`status` was in every
    // partial index).
    expect(stats.upd - stats.hot).toBeLessThanOrEqual(deliveries * 1.1);
    expect(stats.hot / stats.upd).toBeGreaterThanOrEqual(0.45);
  });

  it('gives the churn tables a fillfactor and autovacuum thresholds of their own', async () => {
    const { rows } = await client.query<{ relname: string; reloptions: string[] }>(
      `SELECT relname, reloptions FROM pg_class
        WHERE relname IN ('webhook_deliveries', 'webhook_delivery_attempts', 'events')
          AND relkind = 'r' ORDER BY relname`,
    );
    const autovacuum = [
      'autovacuum_vacuum_scale_factor=0.02',
      'autovacuum_vacuum_threshold=1000',
      'autovacuum_vacuum_insert_scale_factor=0.02',
      'autovacuum_analyze_scale_factor=0.02',
    ];
    expect(
      Object.fromEntries(rows.map((r) => [r.relname, [...(r.reloptions ?? [])].sort()])),
    ).toEqual({
      events: [...autovacuum].sort(),
      webhook_deliveries: ['fillfactor=50', ...autovacuum].sort(),
      webhook_delivery_attempts: [...autovacuum].sort(),
    });
  });
});
