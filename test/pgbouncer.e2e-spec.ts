import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { CredentialCache } from '../src/modules/auth/credential-cache.js';
import {
  DELIVERY_POLL,
  DeliveryWorker,
  POLL_INTERVAL_MS,
} from '../src/modules/webhooks/delivery/delivery-worker.js';
import { NO_LISTEN_NOTICE } from '../src/common/database/listen-connection.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, PG_SERVER_URL_ENV, type TestDatabase } from './support/database.js';
import { call } from './support/http.js';
import { createTenant } from './support/factories.js';
import { startPgBouncer, type PgBouncer } from './support/pgbouncer.js';
import { withDatabase } from './support/pg-url.js';
import { createRevisionFixture, stage } from './support/revision-factories.js';
import {
  createWebhook,
  startReceiver,
  waitFor,
  type Receiver,
} from './support/webhook-factories.js';

/** SHOW answers of the given settings inside a transaction of the service. */
async function timeoutsIn(t: TestApp, tenantId: number | null): Promise<string[]> {
  const tx = t.app.get(TenantTransactions);
  const read = async () => {
    const rows: Array<Record<string, string>> = [];
    for (const name of ['statement_timeout', 'idle_in_transaction_session_timeout']) {
      rows.push(...(await tx.manager.query<Array<Record<string, string>>>(`SHOW ${name}`)));
    }
    return rows.map((r) => Object.values(r)[0] ?? '');
  };
  return tenantId === null ? tx.runAsSystem(read) : tx.run(tenantId, read);
}

/**
 * The service behind a real, stock PgBouncer 1.18 in transaction mode (pool of 3 server
 * connections for a service pool of 20): it starts (no startup parameter PgBouncer refuses),
 * prepares nothing, sets its timeouts in each transaction, listens on DATABASE_LISTEN_URL, and
 * keeps serving without an error while PgBouncer replaces every server connection.
 */
describe('behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    const server = process.env[PG_SERVER_URL_ENV];
    if (!server) throw new Error(`${PG_SERVER_URL_ENV} is not set: run through npm test`);
    database = await createTestDatabase();
    const name = new URL(database.directUrl).pathname.slice(1);
    bouncer = await startPgBouncer({
      serverUrl: server,
      mode: 'transaction',
      poolSize: 3,
      databases: [name],
    });
    t = await startTestApp(
      {
        DATABASE_URL: withDatabase(bouncer.url, name),
        DATABASE_POOL_MODE: 'transaction',
        DATABASE_POOL_SIZE: '20',
        DATABASE_LISTEN_URL: database.directUrl,
        WORKERS_ENABLED: 'true',
        // the load below issues tokens faster than a client may: this file tests the pool
        RATE_LIMIT_TOKEN_PER_MINUTE: '0',
      },
      database,
    );
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    await database?.drop();
    await bouncer?.stop();
  });

  it('sets the timeouts in every transaction, and nothing for the session', async () => {
    const tenantId = await createTenant(t.app);
    expect(await timeoutsIn(t, tenantId)).toEqual(['15s', '30s']);
    expect(await timeoutsIn(t, null)).toEqual(['15s', '30s']);
    // TypeORM's own transactions (tenant and credential administration) too
    const inAdmin = await t.app
      .get(DataSource)
      .transaction(async (m) => [
        ...(await m.query<Array<{ statement_timeout: string }>>('SHOW statement_timeout')),
        ...(await m.query<Array<{ idle_in_transaction_session_timeout: string }>>(
          'SHOW idle_in_transaction_session_timeout',
        )),
      ]);
    expect(inAdmin.map((r) => Object.values(r)[0])).toEqual(['15s', '30s']);
    // a session SET would outlive the transaction on PgBouncer's server connection
    const [outside] = await t.app
      .get(DataSource)
      .query<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
    expect(outside?.statement_timeout).toBe('0');
  });

  it('listens on DATABASE_LISTEN_URL: the credential cache is on, the commit notification alone wakes the worker', async () => {
    const fixture = await createRevisionFixture(t.app, { plan: 'enterprise' });
    await call(t.baseUrl, 'GET', '/projects', { auth: fixture.caller.auth });
    await waitFor(() => (t.app.get(CredentialCache).listening ? true : undefined), 5_000);
    const hook = await createWebhook(t.baseUrl, fixture.caller.auth, receiver.url('/hook'));
    expect(hook.webhookId).toBeGreaterThan(0);
    const before = receiver.on('/hook').length;
    // with the 1 s poll stopped, only the commit's notification can wake the worker
    const schedules = t.app.get(SchedulerRegistry);
    schedules.deleteInterval(DELIVERY_POLL);
    try {
      const res = await stage(t.baseUrl, fixture.caller.auth, fixture.documentId, {
        content: { pgbouncer: true },
      });
      expect(res.status).toBe(201);
      await waitFor(() => (receiver.on('/hook').length > before ? true : undefined), 5_000);
    } finally {
      const worker = t.app.get(DeliveryWorker);
      schedules.addInterval(
        DELIVERY_POLL,
        setInterval(() => worker.poll(), POLL_INTERVAL_MS),
      );
    }
  });

  it('serves concurrent reads, writes and token requests without an error while PgBouncer reconnects', async () => {
    const fixture = await createRevisionFixture(t.app);
    const { caller, documentId } = fixture;
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    let stop = false;
    let reconnects = 0;
    const worker = async (i: number) => {
      for (let n = 0; !stop; n++) {
        const kind = (i + n) % 4;
        const res =
          kind === 0
            ? await call(t.baseUrl, 'POST', '/oauth/token', {
                body: {
                  grant_type: 'client_credentials',
                  client_id: caller.client.clientId,
                  client_secret: caller.client.clientSecret,
                },
              })
            : kind === 1
              ? await stage(t.baseUrl, caller.auth, documentId, { content: { i, n } })
              : kind === 2
                ? await call(t.baseUrl, 'GET', `/documents/${documentId}`, { auth: caller.auth })
                : await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
        count(`${kind}:${res.status}`);
      }
    };
    const workers = Array.from({ length: 24 }, (_, i) => worker(i));
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 400));
      // PgBouncer 1.18 counts a server connection that RECONNECT closes while it logs in as a
      // failed login, and refuses clients for server_login_retry: not ours to test (docs/operators/pgbouncer.md)
      await waitFor(async () => {
        const pools = await bouncer.admin('SHOW POOLS');
        return pools.every((p) => Number(p['sv_login']) === 0);
      });
      // every server connection is closed once its client is done with it and opened again
      await bouncer.admin('RECONNECT');
      reconnects += 1;
    }
    await new Promise((r) => setTimeout(r, 400));
    stop = true;
    await Promise.all(workers);
    const unexpected = [...statuses].filter(([key]) => !/^(0:200|1:201|2:200|3:200)$/.test(key));
    expect(unexpected).toEqual([]);
    expect(reconnects).toBe(5);
    // the load did go through PgBouncer's 3 server connections
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(100);
    const log = await bouncer.log();
    expect(log).not.toMatch(/unsupported startup parameter/);
  });
});

describe('transaction mode without DATABASE_LISTEN_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_POOL_MODE: 'transaction', DATABASE_LISTEN_URL: '' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('says at start-up that wake-ups poll and the credential cache is off, and keeps it off', async () => {
    expect(t.logs.join('')).toContain(NO_LISTEN_NOTICE);
    const tenantId = await createTenant(t.app);
    const { caller } = await createRevisionFixture(t.app, { tenantId });
    const res = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(t.app.get(CredentialCache).listening).toBe(false);
  });
});

describe('session mode', () => {
  let t: TestApp;
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestApp(
      { DATABASE_URL: database.directUrl, DATABASE_POOL_MODE: 'session', DATABASE_LISTEN_URL: '' },
      database,
    );
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('sets the timeouts once for the session, outside transactions too', async () => {
    const tenantId = await createTenant(t.app);
    expect(await timeoutsIn(t, tenantId)).toEqual(['15s', '30s']);
    const [outside] = await t.app
      .get(DataSource)
      .query<Array<Record<string, string>>>('SHOW idle_in_transaction_session_timeout');
    expect(Object.values(outside ?? {})).toEqual(['30s']);
  });
});
