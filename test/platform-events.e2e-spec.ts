import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import pg from 'pg';
import { gracefulClose } from '../src/common/http/graceful-close.js';
import { newEventId } from '../src/modules/webhooks/outbox/event-id.js';
import { EventFeedService } from '../src/modules/events/feed/event-feed.service.js';
import { EventStreamHub } from '../src/modules/events/feed/event-stream-hub.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, createTenant, type TestCaller } from './support/factories.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';
import { openStream, type SseStream } from './support/sse-client.js';
import { until } from './support/until.js';

/**
 * The platform API's event feed (`GET /platform/v1/events`): every tenant's events in an order a
 * poller can resume from, as a list and as Server-Sent Events.
 */
describe('platform events', () => {
  let t: TestApp;
  let feed: EventFeedService;
  let tenantA: number;
  let tenantB: number;
  let key: TestPlatformKey;
  let auditOnly: TestPlatformKey;
  let tenant: TestCaller;
  const sessions: pg.Client[] = [];

  beforeAll(async () => {
    t = await startTestApp({ PLATFORM_SSE_HEARTBEAT_MS: '150' });
    feed = t.app.get(EventFeedService);
    tenantA = await createTenant(t.app);
    tenantB = await createTenant(t.app);
    key = await createPlatformKey(t.app, ['platform:events']);
    auditOnly = await createPlatformKey(t.app, ['platform:audit'], 'audit-only');
    tenant = await createCaller(t.app);
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
      // the data of the type, as the service writes it: the answers are checked against the document
      data:
        type === 'document.checked_out'
          ? { documentId, expires_at: new Date(Date.now() + 60_000).toISOString() }
          : { documentId, released_at: new Date().toISOString() },
    };
    await db.query(
      `INSERT INTO events (event_id, tenant_id, type, payload) VALUES ($1, $2, $3, $4::jsonb)`,
      [id, tenantId, type, JSON.stringify(envelope)],
    );
    return id;
  }

  /**
   * Waits until no committed event waits above the feed's horizon. The horizon is the server's
   * oldest running transaction, of any database on it: on a shared test server another database's
   * transaction may hold it back for a moment.
   */
  async function settle(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await feed.read(null, { types: [] }, 1)).pending) {
      if (Date.now() > deadline) throw new Error('the feed horizon did not move for 10 s');
      await new Promise((ok) => setTimeout(ok, 10));
    }
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
      await settle();
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
      await settle();
      expect((await drain(start)).ids).toEqual([fromA, fromB]);
    });

    it("is not held back by another database's transaction on the same server", async () => {
      const { cursor: start } = await drain(undefined);
      const url = new URL(t.database.directUrl);
      url.pathname = '/postgres';
      const elsewhere = new pg.Client({ connectionString: url.toString() });
      await elsewhere.connect();
      sessions.push(elsewhere);
      await elsewhere.query('BEGIN');
      // older than the event, running, but in another database: it cannot write our events
      await elsewhere.query('SELECT txid_current()');
      const id = await insertEvent(await session(), tenantA);
      const deadline = Date.now() + 10_000;
      let ids: string[] = [];
      while (ids.length === 0 && Date.now() < deadline) {
        ids = (await drain(start)).ids;
        if (ids.length === 0) await new Promise((ok) => setTimeout(ok, 20));
      }
      await elsewhere.query('ROLLBACK');
      expect(ids).toEqual([id]);
    });

    it('never gives a rolled-back event, and a rollback holds nothing back afterwards', async () => {
      const { cursor: start } = await drain(undefined);
      const a = await session();
      await a.query('BEGIN');
      await insertEvent(a, tenantA);
      const committed = await insertEvent(await session(), tenantB);
      await a.query('ROLLBACK');
      await settle();
      expect((await drain(start)).ids).toEqual([committed]);
    });

    it('pages by limit, filters by tenant and type, and resumes past what the filter left out', async () => {
      const { cursor: start } = await drain(undefined);
      const db = await session();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await insertEvent(db, i % 2 ? tenantB : tenantA));
      const typed = await insertEvent(db, tenantB, 'document.checked_out');
      await settle();

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

  describe('GET /events', () => {
    it('lists with filters and resumes from next_cursor, as the service does', async () => {
      const { cursor: start } = await drain(undefined);
      const db = await session();
      const ids = [
        await insertEvent(db, tenantA, 'document.checked_out'),
        await insertEvent(db, tenantB, 'document.checked_in'),
        await insertEvent(db, tenantA, 'document.checked_in'),
      ];
      await settle();
      const get = (query: string) => platformCall(t, 'GET', `/events${query}`, { auth: key.auth });
      const first = await get(`?after=${start}&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
      expect(first.body.data[1]).toMatchObject({
        type: 'document.checked_in',
        tenant_id: tenantB,
        tenantId: tenantB,
        data: { documentId: 1 },
      });
      const rest = await get(`?after=${first.body.next_cursor}&limit=2`);
      expect(rest.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
      const empty = await get(`?after=${rest.body.next_cursor}`);
      expect(empty.body).toEqual({ data: [], next_cursor: rest.body.next_cursor });

      const filtered = await get(
        `?after=${start}&tenantId=${tenantA}&types=document.checked_in,document.lock_expired`,
      );
      expect(filtered.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
      const repeated = await get(
        `?after=${start}&types=document.checked_out&types=document.checked_in`,
      );
      expect(repeated.body.data).toHaveLength(3);
    });

    it('refuses bad queries, no key, a key without platform:events and a tenant token', async () => {
      const get = (query: string, auth?: string) =>
        platformCall(t, 'GET', `/events${query}`, { auth });
      for (const query of [
        '?limit=0',
        '?limit=1001',
        '?types=document.nope',
        '?tenantId=0',
        '?after=bm9wZQ',
        '?cursor=x',
      ]) {
        const res = await get(query, key.auth);
        expect({ query, status: res.status, code: res.body.code }).toEqual({
          query,
          status: 400,
          code: 'validation_failed',
        });
      }
      expect((await get('?tenantId=999999', key.auth)).body.code).toBe('not_found');
      const none = await get('');
      expect([none.status, none.body.code]).toEqual([401, 'unauthenticated']);
      const wrong = await get('', auditOnly.auth);
      expect([wrong.status, wrong.body.code]).toEqual([403, 'insufficient_scope']);
      const tenantToken = await get('', tenant.auth);
      expect(tenantToken.status).toBe(401);
      // and the stream the same
      const streamed = await openStream(`${t.platformUrl}/platform/v1/events`, {
        authorization: auditOnly.auth,
      });
      expect(streamed.status).toBe(403);
    });
  });

  describe('GET /events as Server-Sent Events', () => {
    const streams: SseStream[] = [];
    afterAll(() => {
      for (const s of streams) s.close();
    });

    async function open(query = '', headers: Record<string, string> = {}): Promise<SseStream> {
      const stream = await openStream(`${t.platformUrl}/platform/v1/events${query}`, {
        authorization: key.auth,
        ...headers,
      });
      streams.push(stream);
      return stream;
    }

    it('pushes each committed event as id, event and data, starting with an id of its start', async () => {
      const stream = await open();
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      expect(stream.headers['x-request-id']).toEqual(expect.any(String));
      await until('the first frame', () => stream.messages.length > 0);
      const startId = stream.messages[0]!.id;
      expect(startId).toEqual(expect.any(String));

      const db = await session();
      const id = await insertEvent(db, tenantA, 'document.checked_out');
      const [event] = await until('the event', () => stream.events().length > 0 && stream.events());
      expect(event!.event).toBe('document.checked_out');
      expect(JSON.parse(event!.data!)).toMatchObject({ id, tenantId: tenantA, tenant_id: tenantA });
      // the id is the feed cursor: the list resumes from it with nothing before or at it
      expect((await drain(event!.id)).ids).toEqual([]);
      expect((await drain(startId)).ids).toEqual([id]);
    });

    it('resumes after Last-Event-ID (which wins over after), and after `after`', async () => {
      const db = await session();
      const { cursor: start } = await drain(undefined);
      const ids = [await insertEvent(db, tenantA), await insertEvent(db, tenantB)];
      await settle();
      const firstCursor = (await feed.page(start, {}, 1)).next_cursor!;

      const resumed = await open(`?after=${start}`, { 'Last-Event-ID': firstCursor });
      await until('the second event', () => resumed.events().length >= 1);
      expect(resumed.events().map((e) => JSON.parse(e.data!).id)).toEqual([ids[1]]);

      const fromAfter = await open(`?after=${start}`);
      await until('both events', () => fromAfter.events().length >= 2);
      expect(fromAfter.events().map((e) => JSON.parse(e.data!).id)).toEqual(ids);

      const bad = await open('', { 'Last-Event-ID': 'nonsense' });
      expect(bad.status).toBe(400);
    });

    it('streams in commit-safe order: an event waits for the older transaction still running', async () => {
      const stream = await open();
      await until('the first frame', () => stream.messages.length > 0);
      const a = await session();
      const b = await session();
      await a.query('BEGIN');
      const first = await insertEvent(a, tenantA);
      const second = await insertEvent(b, tenantB);
      // B's event is committed, but A's transaction is older and still running
      await new Promise((ok) => setTimeout(ok, 300));
      expect(stream.events()).toEqual([]);
      await a.query('COMMIT');
      await until('both events', () => stream.events().length >= 2);
      expect(stream.events().map((e) => JSON.parse(e.data!).id)).toEqual([first, second]);
    });

    it('sends a keep-alive comment on the configured interval (150 ms here)', async () => {
      const stream = await open();
      await until('two heartbeats', () =>
        stream.messages.filter((m) => m.comment === 'keep-alive').length >= 2 ? true : undefined,
      );
    });

    it('serves a tenant filter, shares reads among clients at one position, forgets clients that leave', async () => {
      const hub = t.app.get(EventStreamHub);
      for (const s of streams.splice(0)) s.close();
      await until('no client left', () => hub.stats().clients === 0);
      const many = await Promise.all(Array.from({ length: 20 }, () => open()));
      const onlyB = await open(`?tenantId=${tenantB}`);
      await until('all connected', () => hub.stats().clients === 21);
      const before = hub.stats().reads;
      const db = await session();
      const a = await insertEvent(db, tenantA);
      const b = await insertEvent(db, tenantB);
      await until(
        'every client got its events',
        () => many.every((s) => s.events().length === 2) && onlyB.events().length === 1,
      );
      expect(onlyB.events().map((e) => JSON.parse(e.data!).id)).toEqual([b]);
      expect(many[7]!.events().map((e) => JSON.parse(e.data!).id)).toEqual([a, b]);
      // 21 clients, two filters: a handful of reads, not one per client per wake-up
      expect(hub.stats().reads - before).toBeLessThan(21);
      for (const s of streams.splice(0)) s.close();
      await until('clients dropped', () => hub.stats().clients === 0);
    });

    it('stops reading for a client whose socket is full, then catches it up in order', async () => {
      const hub = t.app.get(EventStreamHub);
      const slow = await open();
      const fast = await open();
      await until('connected', () => hub.stats().clients === 2 && slow.messages.length > 0);
      slow.pause();
      const db = await session();
      // 24 MiB of events, far beyond what the socket buffers hold
      const big = 'x'.repeat(64 * 1024);
      const total = 384;
      const ids: string[] = [];
      for (let i = 0; i < total; i++) {
        const id = newEventId();
        ids.push(id);
        await db.query(
          `INSERT INTO events (event_id, tenant_id, type, payload) VALUES ($1, $2, 'document.checked_in', $3::jsonb)`,
          [
            id,
            tenantA,
            JSON.stringify({ id, type: 'document.checked_in', tenant_id: tenantA, data: { big } }),
          ],
        );
      }
      await until('the fast client got everything', () => fast.events().length === total);
      await until('the slow client is held back', () => hub.stats().blocked === 1);
      expect(slow.events().length).toBeLessThan(total);
      slow.resume();
      await until('the slow client caught up', () => slow.events().length === total);
      expect(slow.events().map((e) => JSON.parse(e.data!).id)).toEqual(ids);
      expect(hub.stats().blocked).toBe(0);
    });

    it('writes nothing to a stream once the server closing has ended it', async () => {
      const hub = t.app.get(EventStreamHub);
      // a response that refuses, loudly, any write after its end (Node emits an 'error' event)
      class StrictResponse extends EventEmitter {
        writableEnded = false;
        destroyed = false;
        socket = null;
        headersSent = true;
        lateWrites = 0;
        writeHead(): this {
          return this;
        }
        write(): boolean {
          if (this.writableEnded) this.lateWrites += 1;
          return true;
        }
        end(): this {
          this.writableEnded = true;
          return this;
        }
      }
      const res = new StrictResponse();
      // what a server's 'request' does for gracefulClose: the response is in flight
      const server = createServer();
      const graceful = gracefulClose(server);
      server.emit('request', {}, res);
      hub.attach(res as unknown as ServerResponse, null, {});
      const clients = hub.stats().clients;
      await graceful.close(0);
      expect(res.writableEnded).toBe(true);
      expect(hub.stats().clients).toBe(clients - 1);
      // the heartbeat (150 ms here) and the 1 s poll have run since: neither wrote to it
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      expect(res.lateWrites).toBe(0);
      server.close();
    });

    it('ends its streams as soon as the server starts closing (last: it closes the listener)', async () => {
      // what main.ts does on shutdown before closing the applications
      const graceful = gracefulClose(t.platformApp!.getHttpServer() as Server);
      const stream = await open();
      await until('the first frame', () => stream.messages.length > 0);
      const started = Date.now();
      await graceful.close(10_000);
      await stream.ended;
      // ended by the stream itself, not cut after the 10 s allowed for requests in flight
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
});
