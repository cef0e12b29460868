import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { CommitAnnouncer } from '../src/common/database/commit-announcer.js';
import {
  CREDENTIALS_CHANGED_CHANNEL,
  EVENTS_APPENDED_CHANNEL,
} from '../src/common/database/schema-constants.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../src/modules/webhooks/outbox/outbox-channel.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller } from './support/factories.js';
import { createRevisionFixture, stage } from './support/revision-factories.js';
import { until } from './support/until.js';
import { createWebhook, publishEvents } from './support/webhook-factories.js';

interface Sent {
  client: unknown;
  text: string;
}

/** Records every query any pg client sends, with the client that sent it, until `restore`. */
function recordQueries(): { sent: Sent[]; restore: () => void } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const sent: Sent[] = [];
  proto.query = function (this: unknown, ...args: unknown[]): unknown {
    const config = args[0];
    const text = typeof config === 'string' ? config : (config as { text: string }).text;
    sent.push({ client: this, text });
    return original.apply(this, args);
  };
  return { sent, restore: () => (proto.query = original) };
}

/** The statements each client sent while a transaction of its was open. */
function sentInTransactions(sent: readonly Sent[]): string[] {
  const open = new Set<unknown>();
  const inside: string[] = [];
  for (const { client, text } of sent) {
    if (/^\s*(START TRANSACTION|BEGIN)\b/i.test(text)) open.add(client);
    if (open.has(client)) inside.push(text);
    if (/^\s*(COMMIT|ROLLBACK)\b/i.test(text)) open.delete(client);
  }
  return inside;
}

/**
 * PostgreSQL commits the transactions that ran NOTIFY one at a time (the whole cluster), each
 * holding that turn through its WAL flush: the wake-ups of the event feed and the delivery
 * workers are announced after the commit instead, from a statement of their own.
 */
describe('wake-ups follow the commit', () => {
  let t: TestApp;
  let listener: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    listener = new pg.Client({ connectionString: t.database.directUrl });
    await listener.connect();
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query(`LISTEN ${EVENTS_APPENDED_CHANNEL}`);
    await listener.query(`LISTEN ${WEBHOOK_DELIVERIES_CHANNEL}`);
  });

  afterAll(async () => {
    await listener?.end();
    await t?.close();
  });

  it('no trigger notifies, but those of credential changes', async () => {
    const rows = await t.app.get(DataSource).query<Array<{ fn: string; src: string }>>(
      `SELECT p.proname AS fn, p.prosrc AS src
         FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid
        WHERE NOT tg.tgisinternal AND p.prosrc ILIKE '%notify%'`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { fn, src } of rows) {
      const others = src.replaceAll(`pg_notify('${CREDENTIALS_CHANGED_CHANNEL}'`, '');
      expect({ fn, notifies: /notify/i.test(others) }).toEqual({ fn, notifies: false });
    }
  });

  it('a staging and published events NOTIFY in no transaction, and are heard', async () => {
    const fixture = await createRevisionFixture(t.app, { plan: 'enterprise' });
    const { tenantId, auth } = fixture.caller;
    await createWebhook(t.baseUrl, auth, 'http://127.0.0.1:9/hook', ['*']);
    heard.length = 0;
    const recording = recordQueries();
    try {
      const res = await stage(t.baseUrl, auth, fixture.documentId, { content: { a: 1 } });
      expect(res.status).toBe(201);
      await publishEvents(t.app, tenantId, 3);
      await t.app.get(CommitAnnouncer).settled();
    } finally {
      recording.restore();
    }
    expect(sentInTransactions(recording.sent).filter((text) => /notify/i.test(text))).toEqual([]);
    // the announcements went out, each after its commit
    expect(recording.sent.some(({ text }) => text.includes('pg_notify'))).toBe(true);
    await until('both channels were heard', () =>
      [EVENTS_APPENDED_CHANNEL, WEBHOOK_DELIVERIES_CHANNEL].every((c) => heard.includes(c)),
    );
  });

  it('a rolled-back transaction announces nothing, a committed one once, after its commit', async () => {
    const { tenantId } = await createCaller(t.app);
    const tx = t.app.get(TenantTransactions);
    const announcer = t.app.get(CommitAnnouncer);
    let announced = 0;
    const off = announcer.subscribe(EVENTS_APPENDED_CHANNEL, () => announced++);
    try {
      await expect(
        tx.run(tenantId, async () => {
          await publishEvents(t.app, tenantId, 2);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(announced).toBe(0);
      await tx.run(tenantId, async () => {
        await publishEvents(t.app, tenantId, 2);
        await publishEvents(t.app, tenantId, 1);
        expect(announced).toBe(0);
      });
      expect(announced).toBe(1);
    } finally {
      off();
    }
  });
});
