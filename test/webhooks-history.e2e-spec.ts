import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { JsonText } from '../src/common/http/json-text.js';
import { CATALOG_EVENT_TYPES } from '../src/modules/events/event-catalog.js';
import { LocksService } from '../src/modules/locks/locks.service.js';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { documentedEventTypes, payloadProblem } from './support/event-schemas.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { checkout, expireOpenLock } from './support/lock-factories.js';
import { createRevisionFixture, stage } from './support/revision-factories.js';
import {
  createWebhook,
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
  WEBHOOK_TIMEOUT_MS: '500',
  RATE_LIMIT_API_PER_MINUTE: '1000000',
};

interface Delivery {
  deliveryId: number;
  webhookId: number;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
}

jest.setTimeout(60_000);

/** Issue 20 item 4: the delivery history an integrator can search, and its attempts. */
describe('delivery history', () => {
  let t: TestApp;
  let receiver: Receiver;
  let a: TestCaller;
  let b: TestCaller;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(WORKER_ENV);
    a = await createCaller(t.app);
    b = await createCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const get = (path: string, caller = a) => call(t.baseUrl, 'GET', path, { auth: caller.auth });
  const setStatus = (webhookId: number, status: string, caller = a) =>
    call(t.baseUrl, 'POST', `/webhooks/${webhookId}/status`, {
      auth: caller.auth,
      body: { status },
    });

  /** Every page of `query` (with `limit`), walked to the end; fails on a repeated delivery. */
  async function walk(
    query: string,
    caller = a,
    between?: () => Promise<void>,
  ): Promise<Delivery[]> {
    const rows: Delivery[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const sep = query ? '&' : '';
      const res = await get(
        `/webhook-deliveries?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`,
        caller,
      );
      expect(res.status).toBe(200);
      rows.push(...(res.body.data as Delivery[]));
      cursor = res.body.next_cursor as string | null;
      if (cursor === null) break;
      await between?.();
    }
    const ids = rows.map((r) => r.deliveryId);
    expect(new Set(ids).size).toBe(ids.length);
    return rows;
  }

  it('reads a bounded stretch of history per filtered page: a short page points past it', async () => {
    const c = await createCaller(t.app);
    const hook = await createWebhook(t.baseUrl, c.auth, receiver.url('/history/bulk'));
    expect((await setStatus(hook.webhookId, 'paused', c)).status).toBe(200);
    await publishEvents(t.app, c.tenantId, 1);
    // one failed delivery under 25,000 newer succeeded ones
    await t.app.get(DataSource).query(
      `WITH first AS (UPDATE webhook_deliveries SET status = 'failed', attempts = 3
                       WHERE webhook_id = $1 RETURNING tenant_id, webhook_id, event_id)
       INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, status, attempts)
       SELECT f.tenant_id, f.webhook_id, f.event_id, 'succeeded', 1
         FROM first f CROSS JOIN generate_series(1, 25000)`,
      [hook.webhookId],
    );
    const first = await get('/webhook-deliveries?status=failed&limit=10', c);
    expect(first.status).toBe(200);
    // 10,000 rows read, none failed: an empty page that is not the last
    expect(first.body.data).toEqual([]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const failed = await walk('status=failed&limit=10', c);
    expect(failed.map((d) => d.status)).toEqual(['failed']);
    // a filter many rows match fills its page at once
    const succeeded = await get('/webhook-deliveries?status=succeeded&limit=5', c);
    expect(succeeded.body.data).toHaveLength(5);
    // revoking cancels nothing here (nothing pending) and keeps the tenant's webhook count low
    expect((await setStatus(hook.webhookId, 'revoked', c)).status).toBe(200);
  });

  describe('filters', () => {
    let ok: number;
    let failing: number;
    let held: number;
    let all: Delivery[];

    beforeAll(async () => {
      receiver.reply('/history/fail', 500);
      ok = (await createWebhook(t.baseUrl, a.auth, receiver.url('/history/ok'))).webhookId;
      failing = (await createWebhook(t.baseUrl, a.auth, receiver.url('/history/fail'), ['*']))
        .webhookId;
      held = (
        await createWebhook(t.baseUrl, a.auth, receiver.url('/history/held'), [
          'document.checked_out',
        ])
      ).webhookId;
      expect((await setStatus(held, 'paused')).status).toBe(200);
      await publishEvents(t.app, a.tenantId, 2);
      await publishEvents(t.app, a.tenantId, 2, 'document.checked_out', (i) => ({
        documentId: 100 + i,
        expires_at: '2026-11-22T10:30:00.000Z',
      }));
      // ok: 4 succeeded; failing: 4 failed after 3 attempts; held: 2 queued
      all = await waitFor(
        async () => {
          const rows = await walk('limit=100');
          const settled = rows.filter((r) => ['succeeded', 'failed'].includes(r.status));
          return rows.length === 10 && settled.length === 8 && rows;
        },
        20_000,
        'deliveries to settle',
      );
      // another tenant's deliveries must never show up in A's filters
      await createWebhook(t.baseUrl, b.auth, receiver.url('/history/b'));
      await publishEvents(t.app, b.tenantId, 3);
    });

    it('answers exactly the matching deliveries, newest first, for each filter and combination', async () => {
      const ids = (rows: Delivery[]) => rows.map((r) => r.deliveryId);
      expect(ids(all)).toEqual([...ids(all)].sort((x, y) => y - x));
      const expectFilter = async (query: string, keep: (d: Delivery) => boolean) => {
        const rows = await walk(`limit=100&${query}`);
        expect({ query, ids: ids(rows) }).toEqual({ query, ids: ids(all.filter(keep)) });
        return rows;
      };
      expect(await expectFilter(`webhookId=${ok}`, (d) => d.webhookId === ok)).toHaveLength(4);
      expect(await expectFilter('status=failed', (d) => d.status === 'failed')).toHaveLength(4);
      expect(
        await expectFilter('status=queued&status=succeeded', (d) =>
          ['queued', 'succeeded'].includes(d.status),
        ),
      ).toHaveLength(6);
      expect(
        await expectFilter(
          'event_type=document.checked_out',
          (d) => d.event_type === 'document.checked_out',
        ),
      ).toHaveLength(6);
      expect(
        await expectFilter(
          `webhookId=${failing}&event_type=document.checked_in&status=failed`,
          (d) =>
            d.webhookId === failing &&
            d.event_type === 'document.checked_in' &&
            d.status === 'failed',
        ),
      ).toHaveLength(2);
      expect(
        await expectFilter(
          `webhookId=${held}&status=queued`,
          (d) => d.webhookId === held && d.status === 'queued',
        ),
      ).toHaveLength(2);
      await expectFilter('status=sending&status=cancelled', () => false);
      await expectFilter('event_type=webhook.test', () => false);
    });

    it('answers one filter set with no parameter exactly as before: the newest 50, then a cursor', async () => {
      const plain = await get('/webhook-deliveries');
      expect(plain.status).toBe(200);
      expect(Object.keys(plain.body).sort()).toEqual(['data', 'next_cursor']);
      expect((plain.body.data as Delivery[]).map((d) => d.deliveryId)).toEqual(
        all.map((d) => d.deliveryId),
      );
      expect(plain.body.next_cursor).toBeNull();
    });

    it("matches nothing for another tenant's webhook, exactly as for one that does not exist", async () => {
      const [theirs] = (await walk('limit=100', b)).map((d) => d.webhookId);
      const foreign = await get(`/webhook-deliveries?webhookId=${theirs}`);
      const missing = await get('/webhook-deliveries?webhookId=2000000000');
      expect(foreign.status).toBe(200);
      expect(foreign.body).toEqual({ data: [], next_cursor: null });
      expect(missing.body).toEqual(foreign.body);
    });

    it('pages every filter combination to exactly the matching rows (property)', async () => {
      const statuses = ['queued', 'sending', 'succeeded', 'retry', 'failed', 'cancelled'] as const;
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            webhookId: fc.option(fc.constantFrom(ok, failing, held), { nil: undefined }),
            status: fc.option(fc.subarray([...statuses], { minLength: 1 }), { nil: undefined }),
            eventType: fc.option(fc.constantFrom('document.checked_in', 'document.checked_out'), {
              nil: undefined,
            }),
            limit: fc.integer({ min: 1, max: 4 }),
          }),
          async ({ webhookId, status, eventType, limit }) => {
            const params = new URLSearchParams({ limit: String(limit) });
            if (webhookId !== undefined) params.append('webhookId', String(webhookId));
            for (const s of status ?? []) params.append('status', s);
            if (eventType !== undefined) params.append('event_type', eventType);
            const rows = await walk(params.toString());
            const expected = all.filter(
              (d) =>
                (webhookId === undefined || d.webhookId === webhookId) &&
                (status === undefined || (status as string[]).includes(d.status)) &&
                (eventType === undefined || d.event_type === eventType),
            );
            expect(rows.map((d) => d.deliveryId)).toEqual(expected.map((d) => d.deliveryId));
          },
        ),
        { numRuns: 25 },
      );
    });

    it('reads a cursor on only with the filters it was made with', async () => {
      const first = await get(`/webhook-deliveries?limit=1&webhookId=${ok}`);
      const cursor = encodeURIComponent(first.body.next_cursor as string);
      const refused = [
        `/webhook-deliveries?cursor=${cursor}`,
        `/webhook-deliveries?cursor=${cursor}&webhookId=${failing}`,
        `/webhook-deliveries?cursor=${cursor}&webhookId=${ok}&status=succeeded`,
      ];
      for (const path of refused) {
        const res = await get(path);
        expect({ path, status: res.status, code: res.body.code }).toEqual({
          path,
          status: 400,
          code: 'validation_failed',
        });
      }
      const unfiltered = await get('/webhook-deliveries?limit=1');
      const plainCursor = encodeURIComponent(unfiltered.body.next_cursor as string);
      expect(
        (await get(`/webhook-deliveries?cursor=${plainCursor}&event_type=document.checked_in`))
          .status,
      ).toBe(400);
      // the order of repeated statuses does not matter: the same filter set
      const one = await get('/webhook-deliveries?limit=1&status=failed&status=succeeded');
      const next = await get(
        `/webhook-deliveries?status=succeeded&status=failed&cursor=${encodeURIComponent(
          one.body.next_cursor as string,
        )}`,
      );
      expect(next.status).toBe(200);
    });
  });

  it('walks pages without losing or repeating a delivery while deliveries are inserted between pages', async () => {
    const c = await createCaller(t.app);
    // paused: the deliveries stay queued, so only the inserts change the list
    const hook = await createWebhook(t.baseUrl, c.auth, receiver.url('/history/walk'));
    const other = await createWebhook(t.baseUrl, c.auth, receiver.url('/history/walk-other'));
    for (const id of [hook.webhookId, other.webhookId])
      expect((await setStatus(id, 'paused', c)).status).toBe(200);
    await publishEvents(t.app, c.tenantId, 13);
    const before = await walk('limit=100', c);
    expect(before).toHaveLength(26);
    for (const query of ['limit=3', `limit=4&webhookId=${hook.webhookId}`]) {
      const inserted: string[] = [];
      const rows = await walk(query, c, async () => {
        inserted.push(...(await publishEvents(t.app, c.tenantId, 2)));
      });
      const expected = query.includes('webhookId')
        ? before.filter((d) => d.webhookId === hook.webhookId)
        : before;
      // every delivery that existed when the walk began, each once, newest first; none of the new
      expect(rows.map((d) => d.deliveryId)).toEqual(expected.map((d) => d.deliveryId));
      expect(inserted.length).toBeGreaterThan(0);
      expect(rows.filter((d) => inserted.includes(d.event_id))).toEqual([]);
      before.unshift(...(await walk('limit=100', c)).slice(0, inserted.length * 2));
    }
  });

  it('refuses invalid filter values with 400 validation_failed', async () => {
    const bad = [
      'webhookId=0',
      'webhookId=-1',
      'webhookId=abc',
      'webhookId=1.5',
      'webhookId=2147483648',
      'webhookId=1&webhookId=2',
      'status=bogus',
      'status=',
      'status=failed&status=bogus',
      'status=failed,retry',
      `${'status=failed&'.repeat(7)}limit=1`,
      'event_type=bogus',
      'event_type=*',
      'event_type=',
      'event_type=document.checked_in&event_type=document.checked_out',
      'limit=0',
      'status[]=failed',
    ];
    for (const query of bad) {
      const res = await get(`/webhook-deliveries?${query}`);
      expect({ query, status: res.status, code: res.body?.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
    }
    const messages = (await get('/webhook-deliveries?status=bogus')).body.errors as Array<{
      field: string;
    }>;
    expect(messages.map((e) => e.field)).toContain('status');
  });

  describe('one delivery and its attempts', () => {
    it('answers a delivery as listed, and 404 for an unknown or foreign one', async () => {
      const hook = await createWebhook(t.baseUrl, a.auth, receiver.url('/history/one'));
      const [eventId] = await publishEvents(t.app, a.tenantId, 1);
      const listed = await waitFor(async () => {
        const rows = await walk(`limit=100&webhookId=${hook.webhookId}`);
        return rows[0]?.status === 'succeeded' && rows[0];
      });
      expect(listed.event_id).toBe(eventId);
      const one = await get(`/webhook-deliveries/${listed.deliveryId}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(listed);
      for (const path of [
        `/webhook-deliveries/${listed.deliveryId}`,
        '/webhook-deliveries/2000000000',
      ]) {
        for (const suffix of ['', '/attempts']) {
          const res = await get(`${path}${suffix}`, path.endsWith('2000000000') ? a : b);
          expect({ path, suffix, status: res.status, code: res.body.code }).toEqual({
            path,
            suffix,
            status: 404,
            code: 'not_found',
          });
        }
      }
      // delivery ids are bigserial: 1..2^53-1 (2^53 and longer are never ids)
      for (const id of ['0', 'abc', '9007199254740992', '99999999999999999']) {
        expect((await get(`/webhook-deliveries/${id}/attempts`)).status).toBe(400);
        expect((await get(`/webhook-deliveries/${id}`)).status).toBe(400);
      }
    });

    it("records each attempt: time, duration, status, error and 1 KiB of the receiver's body", async () => {
      // a failure answering 3 KiB of text, then a success answering multibyte text
      const big = `${'0123456789abcdef'.repeat(64)}${'Z'.repeat(2048)}`;
      const multibyte = `a${'é'.repeat(600)}`;
      receiver.reply('/history/attempts', [
        { status: 503, body: big },
        { status: 200, body: multibyte },
      ]);
      const hook = await createWebhook(t.baseUrl, a.auth, receiver.url('/history/attempts'));
      const started = Date.now();
      await publishEvents(t.app, a.tenantId, 1);
      const [delivery] = await walk(`limit=10&webhookId=${hook.webhookId}`);
      await waitFor(
        async () =>
          (await get(`/webhook-deliveries/${delivery!.deliveryId}`)).body.status === 'succeeded',
        10_000,
      );
      const res = await get(`/webhook-deliveries/${delivery!.deliveryId}/attempts`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      const attempts = res.body.data as Array<Record<string, unknown>>;
      expect(attempts).toEqual([
        {
          attempt: 1,
          started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          duration_ms: expect.any(Number),
          response_status: 503,
          error: 'HTTP 503',
          // exactly the first 1024 bytes
          response_body_excerpt: big.slice(0, 1024),
        },
        {
          attempt: 2,
          started_at: expect.stringMatching(/Z$/),
          duration_ms: expect.any(Number),
          response_status: 200,
          error: null,
          // 1 + 2 × 511 bytes: the 512th 'é' would cross 1 KiB and is left out whole
          response_body_excerpt: `a${'é'.repeat(511)}`,
        },
      ]);
      const [first, second] = attempts.map((x) => Date.parse(x['started_at'] as string));
      expect(first).toBeGreaterThanOrEqual(started - 1000);
      expect(second).toBeGreaterThan(first!);
      // nothing of what was sent: no header, no signature
      const sent = receiver.on('/history/attempts');
      expect(sent).toHaveLength(2);
      const text = JSON.stringify(res.body);
      for (const request of sent) {
        expect(text).not.toContain(request.headers['webhook-signature']!.slice(3));
        expect(text).not.toContain(request.body);
      }
      expect(text).not.toMatch(/webhook-(signature|id|timestamp)/);
    });

    it('records null for an attempt that got no response, and [] before any attempt', async () => {
      receiver.reply('/history/hang', 'hang');
      const hook = await createWebhook(t.baseUrl, a.auth, receiver.url('/history/hang'));
      const paused = await createWebhook(t.baseUrl, a.auth, receiver.url('/history/paused'));
      expect((await setStatus(paused.webhookId, 'paused')).status).toBe(200);
      await publishEvents(t.app, a.tenantId, 1);
      const [attempted] = await waitFor(async () => {
        const rows = await walk(`limit=10&webhookId=${hook.webhookId}`);
        return (rows[0]?.attempts ?? 0) >= 1 && rows;
      }, 10_000);
      const attempts = await get(`/webhook-deliveries/${attempted!.deliveryId}/attempts`);
      expect(attempts.body.data[0]).toMatchObject({
        attempt: 1,
        response_status: null,
        error: 'timed out after 500 ms',
        response_body_excerpt: null,
      });
      const [waiting] = await walk(`limit=10&webhookId=${paused.webhookId}`);
      expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
      expect((await get(`/webhook-deliveries/${waiting!.deliveryId}/attempts`)).body).toEqual({
        data: [],
      });
      expect((await setStatus(hook.webhookId, 'revoked')).status).toBe(200);
    });

    it('lists the newest 1,000 attempts of a delivery replayed more often, numbered as ever', async () => {
      const hook = await createWebhook(t.baseUrl, a.auth, receiver.url('/history/many'));
      expect((await setStatus(hook.webhookId, 'paused')).status).toBe(200);
      await publishEvents(t.app, a.tenantId, 1);
      const [delivery] = await walk(`limit=10&webhookId=${hook.webhookId}`);
      // as if replayed 1,005 times
      await t.app.get(DataSource).query(
        `INSERT INTO webhook_delivery_attempts
                (tenant_id, delivery_id, attempted_at, response_status, error, duration_ms)
         SELECT $1, $2, now() - (1006 - i) * interval '1 second', 500, 'HTTP 500', 1
           FROM generate_series(1, 1005) AS i`,
        [a.tenantId, delivery!.deliveryId],
      );
      const res = await get(`/webhook-deliveries/${delivery!.deliveryId}/attempts`);
      expect(res.status).toBe(200);
      const numbers = (res.body.data as Array<{ attempt: number }>).map((x) => x.attempt);
      expect(numbers).toHaveLength(1000);
      expect(numbers[0]).toBe(6);
      expect(numbers.at(-1)).toBe(1005);
      expect((await setStatus(hook.webhookId, 'revoked')).status).toBe(200);
    });

    it('sends the attempts as the text JSON.stringify writes, whatever the receiver answered', async () => {
      const hook = await createWebhook(t.baseUrl, a.auth, receiver.url('/history/odd'));
      expect((await setStatus(hook.webhookId, 'paused')).status).toBe(200);
      await publishEvents(t.app, a.tenantId, 1);
      const [delivery] = await walk(`limit=10&webhookId=${hook.webhookId}`);
      const id = delivery!.deliveryId;
      const db = t.app.get(DataSource);
      // any text PostgreSQL can hold (no U+0000), as a receiver's body or an error could be
      const text = fc.option(
        fc.string({ unit: 'binary', maxLength: 80 }).map((x) => x.replace(/\0/g, '')),
      );
      const attempt = fc.record({
        started: fc.integer({ min: 0, max: 10_000_000 }),
        duration_ms: fc.integer({ min: 0, max: 600_000 }),
        response_status: fc.option(fc.integer({ min: 100, max: 599 })),
        error: text,
        response_body_excerpt: text,
      });
      const release = jest.spyOn(JsonText.prototype, 'release');
      await fc.assert(
        fc.asyncProperty(fc.array(attempt, { minLength: 1, maxLength: 6 }), async (attempts) => {
          await db.query('DELETE FROM webhook_delivery_attempts WHERE delivery_id = $1', [id]);
          // distinct start times, so the numbering is the order they are listed in
          const at = (i: number) =>
            new Date(Date.UTC(2026, 0, 1) + i * 10_000_001 + attempts[i]!.started);
          for (const [i, x] of attempts.entries()) {
            await db.query(
              `INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, attempted_at, duration_ms,
                      response_status, error, response_body_excerpt)
               VALUES ($1, $2, $3, $4, $5, $6, $7)`,
              [
                a.tenantId,
                id,
                at(i),
                x.duration_ms,
                x.response_status,
                x.error,
                x.response_body_excerpt,
              ],
            );
          }
          release.mockClear();
          const res = await get(`/webhook-deliveries/${id}/attempts`);
          // read as a page (its texts held as they arrive) and sent as PostgreSQL wrote it
          const sent = release.mock.contexts as JsonText[];
          expect(sent).toHaveLength(1);
          expect(() => sent[0]!.text).toThrow(/released/);
          const expected = {
            data: attempts.map((x, i) => ({
              attempt: i + 1,
              started_at: at(i).toISOString(),
              duration_ms: x.duration_ms,
              response_status: x.response_status,
              error: x.error,
              response_body_excerpt: x.response_body_excerpt,
            })),
          };
          withMessage(res.text.slice(0, 500), () => {
            expect(res.status).toBe(200);
            expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
            expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
            expect(res.text).toBe(JSON.stringify(expected));
          });
        }),
        { numRuns: 25 },
      );
      release.mockRestore();
      expect((await setStatus(hook.webhookId, 'revoked')).status).toBe(200);
    });
  });
});

/** Issue 20 item 5: what the service sends is what the OpenAPI document describes. */
describe('event payloads against the OpenAPI document', () => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(WORKER_ENV);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('documents every event type, webhook.test included', () => {
    expect(documentedEventTypes().sort()).toEqual([...CATALOG_EVENT_TYPES].sort());
  });

  it('refuses payloads that drift from the document (the check can fail)', () => {
    const good = {
      id: 'evt_01JD2Z8KQ3M4V5W6X7Y8Z9ABCD',
      type: 'document.checked_in',
      timestamp: '2026-11-22T10:00:00.000Z',
      tenant_id: 1,
      data: { documentId: 7, released_at: '2026-11-22T10:00:00.000Z' },
    };
    expect(payloadProblem(JSON.stringify(good))).toBeNull();
    const drifted = [
      { ...good, data: { ...good.data, extra: 1 } },
      { ...good, data: { documentId: 7 } },
      { ...good, data: { ...good.data, documentId: '7' } },
      { ...good, type: 'document.checked_out' },
      { ...good, type: 'document.renamed' },
      { ...good, surprise: true },
      { ...good, id: 'evt_lowercase' },
    ];
    for (const payload of drifted) {
      expect({ payload, problem: payloadProblem(JSON.stringify(payload)) }).toEqual({
        payload,
        problem: expect.any(String),
      });
    }
  });

  it('sends every subscribable event type, through the real routes, as the document describes it', async () => {
    const fixture = await createRevisionFixture(t.app, { plan: 'enterprise' });
    const { caller, documentId } = fixture;
    await createWebhook(t.baseUrl, caller.auth, receiver.url('/catalog'));
    // staged ×3; accepting one creates a version and supersedes the other; the third is rejected
    const staged = [];
    for (let i = 0; i < 2; i++) {
      const res = await stage(t.baseUrl, caller.auth, documentId, { content: { n: i } });
      expect(res.status).toBe(201);
      staged.push(res.body.revisionId as number);
    }
    const decisions = t.app.get(RevisionDecisionService);
    await decisions.accept(staged[0]!, 'jane@example.com');
    const third = await stage(t.baseUrl, caller.auth, documentId, { content: { n: 3 } });
    await decisions.reject(third.body.revisionId as number, 'jane@example.com', 'no');
    const lock = await checkout(t.baseUrl, caller, documentId, 5);
    expect(
      (
        await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
          auth: caller.auth,
          body: { lock_token: lock.lock_token },
        })
      ).status,
    ).toBe(200);
    await checkout(t.baseUrl, caller, documentId, 5);
    await expireOpenLock(t.app, documentId);
    // (the app's own sweep may have been first)
    await t.app.get(LocksService).sweepExpired();

    const subscribable = CATALOG_EVENT_TYPES.filter((type) => type !== 'webhook.test');
    const bodies = await waitFor(
      () => {
        const got = receiver.on('/catalog');
        const types = new Set(got.map((r) => (JSON.parse(r.body) as { type: string }).type));
        return subscribable.every((type) => types.has(type)) && got;
      },
      15_000,
      'every event type',
    );
    for (const request of bodies) {
      expect({ body: request.body, problem: payloadProblem(request.body) }).toEqual({
        body: request.body,
        problem: null,
      });
    }
    // the receiver checks every delivery of every suite that uses it; nothing undocumented here
    expect(receiver.undocumented).toEqual([]);
    const stored: Array<{ n: string }> = await t.app
      .get(DataSource)
      .query(`SELECT count(DISTINCT type)::text AS n FROM events WHERE tenant_id = $1`, [
        caller.tenantId,
      ]);
    expect(stored[0]!.n).toBe(String(subscribable.length));
  });
});
