import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { newEventId } from '../src/modules/webhooks/outbox/event-id.js';
import { EventFeedService } from '../src/modules/events/feed/event-feed.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTenant } from './support/factories.js';

/**
 * The platform API's event feed (`GET /platform/v1/events`): every tenant's events in an order a
 * poller can resume from, as a list and as Server-Sent Events.
 */
describe('platform events', () => {
  let t: TestApp;
  let feed: EventFeedService;
  let tenantA: number;
  let tenantB: number;
  const sessions: pg.Client[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    feed = t.app.get(EventFeedService);
    tenantA = await createTenant(t.app);
    tenantB = await createTenant(t.app);
  });
  afterAll(async () => {
    for (const s of sessions) await s.end().catch(() => undefined);
    await t.close();
  });

  /** A connection of its own, to hold a transaction open while others commit. */
  async function session(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: t.database.directUrl });
    await client.connect();
    sessions.push(client);
    return client;
  }

  /** Inserts an event as the outbox stores it (the envelope webhooks receive); its public id. */
  async function insertEvent(
    db: pg.Client,
    tenantId: number,
    type = 'document.checked_in',
    documentId = 1,
  ): Promise<string> {
    const id = newEventId();
    const envelope = {
      id,
      type,
      timestamp: new Date().toISOString(),
      tenant_id: tenantId,
      data: { documentId, released_at: new Date().toISOString() },
    };
    await db.query(
      `INSERT INTO events (event_id, tenant_id, type, payload) VALUES ($1, $2, $3, $4::jsonb)`,
      [id, tenantId, type, JSON.stringify(envelope)],
    );
    return id;
  }

  /** Every event after `cursor`, page by page; the ids and the cursor to resume from. */
  async function drain(
    cursor: string | undefined,
    filter: { tenantId?: number; types?: string[] } = {},
    limit = 100,
  ): Promise<{ ids: string[]; cursor: string | undefined; data: Record<string, unknown>[] }> {
    const data: Record<string, unknown>[] = [];
    let at = cursor;
    for (;;) {
      const page = await feed.page(at, filter, limit);
      data.push(...page.data);
      if (page.data.length > 0) expect(page.next_cursor).not.toBeNull();
      at = page.next_cursor ?? at;
      if (page.data.length < limit) break;
    }
    return { ids: data.map((e) => e['id'] as string), cursor: at, data };
  }

  describe('the feed (service)', () => {
    it('holds back an event whose older transaction is still running, then gives both in order', async () => {
      const { cursor: start } = await drain(undefined);
      const a = await session();
      const b = await session();
      // A takes its transaction id first (and the lower event id); B commits first
      await a.query('BEGIN');
      const first = await insertEvent(a, tenantA);
      await b.query('BEGIN');
      const second = await insertEvent(b, tenantB);
      await b.query('COMMIT');

      // B has committed, but A (older) still runs: B's event is not given yet, and a poller
      // resuming from here cannot skip A's
      const early = await drain(start);
      expect(early.ids).toEqual([]);

      await a.query('COMMIT');
      const late = await drain(early.cursor);
      expect(late.ids).toEqual([first, second]);
      // each is the webhook envelope with tenantId
      expect(late.data[0]).toMatchObject({ id: first, tenant_id: tenantA, tenantId: tenantA });
      expect(late.data[1]).toMatchObject({ id: second, tenant_id: tenantB, tenantId: tenantB });
      // and nothing comes twice
      expect((await drain(late.cursor)).ids).toEqual([]);
    });

    it('orders by transaction, not by event id: a later writer with a lower id comes after', async () => {
      const { cursor: start } = await drain(undefined);
      const a = await session();
      const b = await session();
      await a.query('BEGIN');
      // A has a transaction id before B, but inserts its event after B's
      await a.query('SELECT txid_current()');
      await b.query('BEGIN');
      const fromB = await insertEvent(b, tenantA);
      const fromA = await insertEvent(a, tenantA);
      await a.query('COMMIT');
      await b.query('COMMIT');
      expect((await drain(start)).ids).toEqual([fromA, fromB]);
    });

    it('never gives a rolled-back event, and a rollback holds nothing back afterwards', async () => {
      const { cursor: start } = await drain(undefined);
      const a = await session();
      await a.query('BEGIN');
      await insertEvent(a, tenantA);
      const committed = await insertEvent(await session(), tenantB);
      await a.query('ROLLBACK');
      expect((await drain(start)).ids).toEqual([committed]);
    });

    it('pages by limit, filters by tenant and type, and resumes past what the filter left out', async () => {
      const { cursor: start } = await drain(undefined);
      const db = await session();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await insertEvent(db, i % 2 ? tenantB : tenantA));
      const typed = await insertEvent(db, tenantB, 'document.checked_out');

      expect((await drain(start, {}, 2)).ids).toEqual([...ids, typed]);
      expect((await drain(start, { tenantId: tenantA })).ids).toEqual([ids[0], ids[2], ids[4]]);
      expect((await drain(start, { types: ['document.checked_out'] })).ids).toEqual([typed]);

      // a filter that matched nothing still moves the cursor to the end of what was read
      const none = await feed.page(
        start,
        { tenantId: tenantA, types: ['document.lock_expired'] },
        10,
      );
      expect(none.data).toEqual([]);
      expect(none.next_cursor).not.toBe(start);
      expect((await drain(none.next_cursor ?? undefined)).ids).toEqual([]);
    });

    it('refuses a cursor it did not make and an unknown tenant', async () => {
      await expect(feed.page('bm90LWEtY3Vyc29y', {}, 10)).rejects.toMatchObject({
        code: 'validation_failed',
      });
      await expect(feed.page(undefined, { tenantId: 999_999 }, 10)).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });
});
