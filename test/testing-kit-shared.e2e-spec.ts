import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// The kit's shared service (globalSetup / attachIntegrationApi), reset() and emit(), against the
// built package (dist/, built by `npm test`) and a real PostgreSQL.
jest.setTimeout(120_000);

type Kit = typeof import('../src/testing/index.cjs');
const kit = createRequire(import.meta.url)('../dist/src/testing/index.cjs') as Kit;

async function get(api: { apiUrl: string }, path: string, token: string): Promise<number> {
  const res = await fetch(`${api.apiUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

describe('testing kit: one shared service, reset() and emit()', () => {
  let database: TestDatabase;
  let a: Awaited<ReturnType<Kit['attachIntegrationApi']>>;
  let b: Awaited<ReturnType<Kit['attachIntegrationApi']>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    // what jest's globalSetup does in the parent process; the workers inherit the variable
    await kit.globalSetup({ databaseUrl: database.url, env: database.env })();
    a = await kit.attachIntegrationApi();
    b = await kit.attachIntegrationApi();
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await kit.globalTeardown();
    await database?.drop();
  });

  it('every attached handle reaches the one service the global setup started', async () => {
    expect(process.env[kit.SHARED_SERVICE_ENV]).toBeTruthy();
    expect(a.baseUrl).toBe(b.baseUrl);
    expect(a.pid).toBe(b.pid);
    // the platform listener and the kit's key, published to every handle
    expect(a.platformUrl).toBe(b.platformUrl);
    expect(a.platformKey).toMatch(/^gpk_/);
    expect(b.platformKey).toBe(a.platformKey);
    const auth = { authorization: `Bearer ${b.platformKey}` };
    const doc = await fetch(`${b.platformUrl}/platform/v1/tenants`, { headers: auth });
    expect(doc.status).not.toBe(401);
    await doc.arrayBuffer();
    const fromA = await a.createTenant({ projects: [{ name: 'P' }] });
    expect(await get(b, '/projects', fromA.token)).toBe(200);
  });

  it("reset() on an attached handle empties its own tenants' data, not another suite's", async () => {
    const mine = await a.createTenant({ projects: [{ name: 'Mine' }] });
    const theirs = await b.createTenant({ projects: [{ name: 'Theirs' }] });
    const { ms } = await a.reset();
    process.stdout.write(`reset() of one handle's tenants (DELETE): ${ms} ms\n`);
    // its credentials are gone with its data; the other handle's tenant is untouched
    expect(await get(a, '/projects', mine.token)).toBe(401);
    expect(await get(b, '/projects', theirs.token)).toBe(200);
    const again = await a.cli('tenant', 'entitlements', '--tenant', String(mine.tenant.tenant_id));
    expect(again.exitCode).toBe(0);
  });

  it('emit() publishes a catalog event through the outbox to the subscribed webhooks', async () => {
    const receiver = await a.webhookReceiver();
    const acme = await a.createTenant({
      webhooks: [{ url: receiver.url, events: ['document.checked_in'] }],
    });
    const data = { documentId: 42, released_at: '2026-11-27T10:00:00.000Z' };
    const { event_id } = await a.emit('document.checked_in', data, { tenant: acme });
    const delivery = await receiver.waitFor('document.checked_in');
    expect(delivery.verified).toBe(true);
    expect(delivery.id).toBe(event_id);
    expect(delivery.body).toMatchObject({ type: 'document.checked_in', data });
    expect(delivery.body.tenant_id).toBe(acme.tenant.tenant_id);
  });

  it('emit() refuses an unknown type and a tenant that does not exist', async () => {
    await expect(
      a.emit(
        'document.renamed' as 'document.checked_in',
        { documentId: 1, released_at: '' },
        {
          tenant: 1,
        },
      ),
    ).rejects.toThrow(/--type must be one of/);
    await expect(
      a.emit('document.checked_in', { documentId: 1, released_at: '' }, { tenant: 999_999 }),
    ).rejects.toThrow(/tenant not found/);
  });
});

describe('testing kit: reset() while the worker delivers', () => {
  let database: TestDatabase;
  let api: Awaited<ReturnType<Kit['startIntegrationApi']>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await kit.startIntegrationApi({ databaseUrl: database.url, env: database.env });
  });
  afterAll(async () => {
    await api?.stop();
    await database?.drop();
  });

  it('succeeds, and no batch of the worker results fails on a delivery it removed', async () => {
    const receiver = await api.webhookReceiver();
    for (let round = 0; round < 15; round++) {
      const acme = await api.createTenant({
        webhooks: [{ url: receiver.url, events: ['document.checked_in'] }],
      });
      const data = { documentId: 1, released_at: '2026-11-27T10:00:00.000Z' };
      await Promise.all(
        Array.from({ length: 10 }, () => api.emit('document.checked_in', data, { tenant: acme })),
      );
      // the first deliveries are being sent and recorded: reset in the middle of it
      await receiver.waitFor('document.checked_in');
      await api.reset();
    }
    // once a later delivery is recorded, every earlier batch was written or given up (one writer,
    // in order): none may have failed on a delivery the reset removed
    const last = await api.createTenant({
      webhooks: [{ url: receiver.url, events: ['document.checked_in'] }],
    });
    const data = { documentId: 2, released_at: '2026-11-27T10:00:00.000Z' };
    const { event_id } = await api.emit('document.checked_in', data, { tenant: last });
    await receiver.waitFor('document.checked_in', { where: (d) => d.id === event_id });
    for (const deadline = Date.now() + 20_000; ;) {
      const res = await fetch(`${api.apiUrl}/webhook-deliveries?status=succeeded`, {
        headers: { authorization: `Bearer ${last.token}` },
      });
      const { data: rows } = (await res.json()) as { data: unknown[] };
      if (rows.length === 1) break;
      if (Date.now() > deadline) throw new Error('the last delivery was never recorded');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(
      api
        .output()
        .split('\n')
        .filter((l) => /"level":(50|60)/.test(l)),
    ).toEqual([]);
  });
});

describe('testing kit: reset() of a service of its own', () => {
  let database: TestDatabase;
  let api: Awaited<ReturnType<Kit['startIntegrationApi']>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await kit.startIntegrationApi({ databaseUrl: database.url, env: database.env });
  });
  afterAll(async () => {
    await api?.stop();
    await database?.drop();
  });

  it("empties every tenant's data and the receivers' deliveries", async () => {
    const receiver = await api.webhookReceiver();
    const one = await api.createTenant({
      projects: [{ name: 'P', documents: [{ title: 'D', content: { v: 1 } }] }],
      webhooks: [{ url: receiver.url, events: ['document.checked_out'] }],
    });
    const two = await api.createTenant({ projects: [{ name: 'Q' }] });
    const documentId = one.projects[0]!.documents[0]!.documentId;
    const out = await fetch(`${api.apiUrl}/documents/${documentId}/checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${one.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(out.status).toBe(201);
    await receiver.waitFor('document.checked_out');

    const timings: number[] = [];
    for (let i = 0; i < 5; i++) timings.push((await api.reset()).ms);
    process.stdout.write(`reset() of every tenant, 5 runs: ${timings.join(', ')} ms\n`);

    expect(receiver.deliveries).toEqual([]);
    for (const t of [one, two]) expect(await get(api, '/projects', t.token)).toBe(401);
    // a fresh tenant after a reset sees only its own data
    const three = await api.createTenant({ projects: [{ name: 'R' }] });
    const res = await fetch(`${api.apiUrl}/projects`, {
      headers: { authorization: `Bearer ${three.token}` },
    });
    const body = (await res.json()) as { data: Array<{ name: string }> };
    expect(body.data.map((p) => p.name)).toEqual(['R']);
  });
});
