import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AuditEntry, AuditService } from '../src/modules/audit/audit.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { runCli } from './support/cli.js';
import { createTenant } from './support/factories.js';

/** The platform API's audit trail (`GET /platform/v1/audit`) and the CLI's `audit list`. */
describe('platform audit', () => {
  let t: TestApp;
  let audit: AuditService;
  let tenantA: number;
  let tenantB: number;

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
    await audit.drain();
  });
  afterAll(async () => {
    await t.close();
  });

  const actions = (page: { data: { action: string }[] }) => page.data.map((r) => r.action);

  describe('the listing (service)', () => {
    it("lists every tenant's lines, and those of no tenant, newest first", async () => {
      const page = await audit.list({}, 100);
      expect(actions(page).slice(0, 6)).toEqual([
        'a.one',
        'b.two',
        'a.two',
        'token.issue',
        'b.one',
        'a.one',
      ]);
      expect(page.next_cursor).toBeNull();
      expect(page.data[0]).toEqual({
        id: expect.any(Number),
        tenantId: tenantA,
        credential: `client:${tenantA}`,
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
      const first = await audit.list({ tenantId: tenantB }, 1);
      expect(actions(first)).toEqual(['b.two']);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await audit.list({ tenantId: tenantB }, 1, first.next_cursor!);
      expect(actions(second)).toEqual(['b.one']);
      expect(second.next_cursor).toBeNull();
      // a cursor of one filter is refused with another
      await expect(audit.list({ tenantId: tenantA }, 1, first.next_cursor!)).rejects.toMatchObject({
        code: 'validation_failed',
      });
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

    it('is what the CLI lists', async () => {
      const listed = await runCli(t, 'audit', 'list', '--tenant', String(tenantB));
      expect(listed.code).toBe(0);
      expect(listed.out).toEqual({ data: (await audit.list({ tenantId: tenantB }, 100)).data });
    });
  });
});
