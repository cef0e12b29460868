import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AuditEntry, AuditService } from '../src/modules/audit/audit.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { runCli } from './support/cli.js';
import { createCaller, createTenant, type TestCaller } from './support/factories.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';

/** The platform API's audit trail (`GET /platform/v1/audit`) and the CLI's `audit list`. */
describe('platform audit', () => {
  let t: TestApp;
  let audit: AuditService;
  let tenantA: number;
  let tenantB: number;
  let key: TestPlatformKey;
  let eventsOnly: TestPlatformKey;
  let tenant: TestCaller;

  beforeAll(async () => {
    t = await startTestApp();
    audit = t.app.get(AuditService);
    tenantA = await createTenant(t.app);
    tenantB = await createTenant(t.app);
    const entry = (tenantId: number | null, action: string): AuditEntry => ({
      tenantId,
      credentialRef: tenantId === null ? null : `client:${tenantId}`,
      action,
      target: `thing:${action}`,
      outcome: 'success',
      ip: '203.0.113.9',
      requestId: `req-${action}`,
    });
    // recorded one by one: ids follow this order
    for (const [tenantId, action] of [
      [tenantA, 'a.one'],
      [tenantB, 'b.one'],
      [null, 'token.issue'],
      [tenantA, 'a.two'],
      [tenantB, 'b.two'],
      [tenantA, 'a.one'],
    ] as const) {
      await audit.record(entry(tenantId, action));
    }
    // a platform key's write, on behalf of a person in the platform's UI
    await audit.record({
      ...entry(tenantB, 'b.platform'),
      credentialRef: 'platform:admin-ui',
      actor: 'jane@acme.example',
    });
    key = await createPlatformKey(t.app, ['platform:audit']);
    eventsOnly = await createPlatformKey(t.app, ['platform:events'], 'events-only');
    tenant = await createCaller(t.app);
    await audit.drain();
  });
  afterAll(async () => {
    await t.close();
  });

  const actions = (page: { data: { action: string }[] }) => page.data.map((r) => r.action);

  describe('the listing (service)', () => {
    it("lists every tenant's lines, and those of no tenant, newest first", async () => {
      const page = await audit.list({}, 100);
      expect(actions(page).slice(0, 7)).toEqual([
        'b.platform',
        'a.one',
        'b.two',
        'a.two',
        'token.issue',
        'b.one',
        'a.one',
      ]);
      expect(page.next_cursor).toBeNull();
      expect(page.data[0]).toMatchObject({
        tenant_id: tenantB,
        credential: 'platform:admin-ui',
        actor: 'jane@acme.example',
      });
      expect(page.data[1]).toEqual({
        id: expect.any(Number),
        tenant_id: tenantA,
        credential: `client:${tenantA}`,
        actor: null,
        action: 'a.one',
        target: 'thing:a.one',
        outcome: 'success',
        detail: null,
        ip: '203.0.113.9',
        request_id: 'req-a.one',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      });
    });

    it('filters by tenant and action, and pages by cursor without repeats or gaps', async () => {
      expect(actions(await audit.list({ tenantId: tenantA }, 100))).toEqual([
        'a.one',
        'a.two',
        'a.one',
      ]);
      expect(actions(await audit.list({ tenantId: tenantA, action: 'a.one' }, 100))).toEqual([
        'a.one',
        'a.one',
      ]);
      const first = await audit.list({ tenantId: tenantB }, 2);
      expect(actions(first)).toEqual(['b.platform', 'b.two']);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await audit.list({ tenantId: tenantB }, 2, first.next_cursor!);
      expect(actions(second)).toEqual(['b.one']);
      expect(second.next_cursor).toBeNull();
      // a cursor of one filter is refused with another
      for (const other of [{ tenantId: tenantA }, { tenantId: tenantB, action: 'b.one' }]) {
        await expect(audit.list(other, 2, first.next_cursor!)).rejects.toMatchObject({
          code: 'validation_failed',
        });
      }
    });

    it('filters by time: since inclusive, until exclusive', async () => {
      const all = await audit.list({ tenantId: tenantA }, 100);
      const newest = all.data[0]!.created_at;
      const since = await audit.list({ tenantId: tenantA, since: newest }, 100);
      expect(since.data.map((r) => r.id)).toEqual(
        all.data.filter((r) => r.created_at >= newest).map((r) => r.id),
      );
      const until = await audit.list({ tenantId: tenantA, until: newest }, 100);
      expect(until.data.map((r) => r.id)).toEqual(
        all.data.filter((r) => r.created_at < newest).map((r) => r.id),
      );
      expect((await audit.list({ until: '2000-01-01T00:00:00Z' }, 100)).data).toEqual([]);
    });

    it("is what the CLI lists (with the CLI's tenant_id)", async () => {
      const listed = await runCli(t, 'audit', 'list', '--tenant', String(tenantB));
      expect(listed.code).toBe(0);
      expect(listed.out).toEqual({ data: (await audit.list({ tenantId: tenantB }, 100)).data });
    });
  });

  describe('GET /audit', () => {
    const get = (query: string, auth = key.auth) =>
      platformCall(t, 'GET', `/audit${query}`, { auth });

    it('lists every tenant or one, filtered and paged, with the actor', async () => {
      const all = await get('?limit=1000');
      expect(all.status).toBe(200);
      expect(all.body).toEqual(await audit.list({}, 1000));
      const one = await get(`?tenantId=${tenantB}&limit=2`);
      expect(actions(one.body)).toEqual(['b.platform', 'b.two']);
      expect(one.body.data[0]).toMatchObject({
        actor: 'jane@acme.example',
        credential: 'platform:admin-ui',
      });
      const next = await get(`?tenantId=${tenantB}&limit=2&cursor=${one.body.next_cursor}`);
      expect(actions(next.body)).toEqual(['b.one']);
      expect(next.body.next_cursor).toBeNull();
      const action = await get(`?action=a.one&until=2999-01-01&since=2000-01-01T00:00:00Z`);
      expect(actions(action.body)).toEqual(['a.one', 'a.one']);
      // no secret in any line: the key used to read is not in the trail
      expect(all.text).not.toContain(key.key);
    });

    it('refuses bad queries, unknown tenants, no key, a key without platform:audit and a tenant token', async () => {
      for (const query of [
        '?limit=0',
        '?limit=1001',
        '?tenantId=-1',
        '?since=yesterday',
        '?until=2026-02-30',
        '?since=2026-11-22T10:00',
        '?action=',
        '?cursor=bm9wZQ',
        '?after=x',
      ]) {
        const res = await get(query);
        expect({ query, status: res.status, code: res.body.code }).toEqual({
          query,
          status: 400,
          code: 'validation_failed',
        });
      }
      const unknown = await get('?tenantId=999999');
      expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
      const none = await platformCall(t, 'GET', '/audit');
      expect([none.status, none.body.code]).toEqual([401, 'unauthenticated']);
      const wrong = await get('', eventsOnly.auth);
      expect([wrong.status, wrong.body.code]).toEqual([403, 'insufficient_scope']);
      expect((await get('', tenant.auth)).status).toBe(401);
    });
  });
});
