import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import { MAX_IN_FLIGHT_PER_TENANT } from '../src/modules/webhooks/delivery/worker-limits.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { type ApiResponse, call } from './support/http.js';
import { createLockableDocument } from './support/lock-factories.js';
import { createCaller } from './support/factories.js';
import { createDocument } from './support/read-factories.js';
import {
  createRevisionFixture,
  currentHash,
  revisionRows,
  stage,
} from './support/revision-factories.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import { createWebhook, waitFor } from './support/webhook-factories.js';

/**
 * Two service processes (`node dist/src/main.js`, as two replicas behind a load balancer would run)
 * on one PostgreSQL, driven round-robin: they must behave as one system.
 */
describe('scale-out: two service instances on one database', () => {
  const secretKey = randomBytes(32).toString('base64');
  let database: TestDatabase;
  let t: TestApp;
  const instances: ServiceProcess[] = [];

  /** The base URL of the instance that serves request `i` (round-robin). */
  const on = (i: number): string => instances[i % 2]!.baseUrl;

  beforeAll(async () => {
    database = await createTestDatabase();
    // the in-process app only seeds and decides revisions, as the host platform would
    t = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey }, database);
    const env = {
      ...database.env,
      WEBHOOK_SECRET_KEY: secretKey,
      WORKERS_ENABLED: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // held sends in the delivery test must not time out (and be retried) while held
      WEBHOOK_TIMEOUT_MS: '30000',
      // the delivery test holds more sends to its one webhook than one process may: the
      // per-endpoint limit has tests of its own (webhooks-fairness.e2e-spec.ts)
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1000',
      RATE_LIMIT_API_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
    };
    const started = await Promise.allSettled([startService(env), startService(env)]);
    for (const s of started) if (s.status === 'fulfilled') instances.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    expect(new Set(instances.map((s) => s.port)).size).toBe(2);
  });

  afterAll(async () => {
    const stopped = await Promise.allSettled(instances.map((s) => s.stop('SIGTERM', 15_000)));
    await t?.close();
    await database?.drop();
    for (const s of stopped) if (s.status === 'rejected') throw s.reason;
  });

  it('40 concurrent checkouts of one document across both instances: exactly one wins', async () => {
    const caller = await createCaller(t.app, { plan: 'professional' });
    const { documentId } = await createLockableDocument(t.app, caller.tenantId);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(on(i), 'POST', `/documents/${documentId}/checkout`, { auth: caller.auth, body: {} }),
      ),
    );
    const won = responses.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(423);
      expect(r.body.code).toBe('document_locked');
      expect(r.body.expires_at).toBe(won[0]!.body.expires_at);
    }
    const locks: Array<{ n: number }> = await t.app
      .get(DataSource)
      .query(
        'SELECT count(*)::int AS n FROM document_locks WHERE document_id = $1 AND released_at IS NULL',
        [documentId],
      );
    expect(locks[0]!.n).toBe(1);
  });

  it('20 concurrent stagings with one Idempotency-Key across both instances: one candidate, identical 201s', async () => {
    const f = await createRevisionFixture(t.app);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stage(
          on(i),
          f.caller.auth,
          f.documentId,
          { content: { clause: 'A.5.15', text: 'Access control' }, source_reference: 'erp-1' },
          { 'idempotency-key': 'scale-out-key' },
        ),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    // the same JSON body every time (replays come from jsonb, so key order may differ)
    for (const r of responses) expect(r.body).toEqual(responses[0]!.body);
    expect(new Set(responses.map((r) => r.headers.get('location'))).size).toBe(1);
    const rows = await revisionRows(t.app, f.documentId);
    expect(rows.map((r) => r.id)).toEqual([responses[0]!.body.revisionId]);
  });

  it('20 stagings with If-Match across both instances while a revision is accepted: each 201 on the version current at its commit, every refusal a version_conflict', async () => {
    let created = 0;
    let refused = 0;
    for (let round = 0; round < 2; round++) {
      const f = await createRevisionFixture(t.app);
      const v1 = f.versionIds.at(-1)!;
      const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
      const chosen = await stage(on(round), f.caller.auth, f.documentId, {
        content: { chosen: 1 },
      });
      expect(chosen.status).toBe(201);
      const requests: Array<Promise<ApiResponse>> = Array.from({ length: 20 }, (_, i) =>
        stage(on(i), f.caller.auth, f.documentId, { content: { i } }, { 'if-match': `"${hash}"` }),
      );
      // accept once some stagings have committed while the others are still in flight
      await waitFor(
        async () => (await revisionRows(t.app, f.documentId)).length >= 4,
        10_000,
        'three committed stagings',
      );
      const accepted = await t.app
        .get(RevisionDecisionService)
        .accept(chosen.body.revisionId as number, 'jane@acme');
      const responses = await Promise.all(requests);

      const ok = responses.filter((r) => r.status === 201);
      const conflicts = responses.filter((r) => r.status !== 201);
      created += ok.length;
      refused += conflicts.length;
      for (const r of conflicts) {
        expect(r.status).toBe(400);
        expect(r.body.code).toBe('version_conflict');
      }
      // If-Match named v1: a 201 means v1 was current at its commit, so the accept superseded it
      const rows = await revisionRows(t.app, f.documentId);
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(ok.length).toBeGreaterThanOrEqual(3);
      for (const r of ok) {
        expect(r.body.base_version_id).toBe(v1);
        expect(byId.get(r.body.revisionId)?.status).toBe('superseded');
      }
      expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(
        [chosen.body.revisionId as number, ...ok.map((r) => r.body.revisionId as number)].sort(
          (a, b) => a - b,
        ),
      );
      expect(byId.get(chosen.body.revisionId)).toMatchObject({
        status: 'accepted',
        resulting_version_id: accepted.resulting_version_id,
      });
    }
    expect(created + refused).toBe(40);
  });

  it('500 events staged across both instances: each delivered exactly once, by both workers', async () => {
    const receiver = await startHoldingReceiver(MAX_IN_FLIGHT_PER_TENANT);
    try {
      const f = await createRevisionFixture(t.app, { plan: 'enterprise' });
      const hook = await createWebhook(
        on(0),
        f.caller.auth,
        receiver.url,
        ['external_revision.staged'],
        'scale-out receiver',
      );

      // spread over documents: stagings of one document serialize on its row
      const documentIds = [f.documentId];
      for (let d = 1; d < 8; d++) {
        documentIds.push((await createDocument(t.app, f.caller.tenantId, f.projectId)).documentId);
      }

      const started = Date.now();
      const statuses = await mapPool(500, 16, (i) =>
        stage(on(i), f.caller.auth, documentIds[i % documentIds.length]!, {
          content: { n: i },
        }).then((r) => r.status),
      );
      const stagedMs = Date.now() - started;
      expect(statuses).toEqual(Array(500).fill(201));

      // One worker holds at most MAX_IN_FLIGHT_PER_TENANT sends of one tenant at once: more
      // requests in flight together at the receiver means the other instance's worker was too.
      await waitFor(() => receiver.released, 20_000, 'both workers sending at once');

      const eventIds: string[] = (
        await t.app
          .get(DataSource)
          .query(
            `SELECT payload->>'id' AS id FROM events WHERE tenant_id = $1 AND type = $2 ORDER BY id`,
            [f.caller.tenantId, 'external_revision.staged'],
          )
      ).map((r: { id: string }) => r.id);
      expect(eventIds).toHaveLength(500);

      // every delivery row terminal, so no further send can happen after the count below
      await waitFor(
        async () => {
          const rows: Array<{ status: string; n: number }> = await t.app.get(DataSource).query(
            `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1
                GROUP BY status`,
            [hook.webhookId],
          );
          return rows.length === 1 && rows[0]!.status === 'succeeded' && rows[0]!.n === 500;
        },
        30_000,
        '500 succeeded deliveries',
      );
      const deliveredMs = Date.now() - started;

      const perId = new Map<string, number>();
      for (const id of receiver.webhookIds) perId.set(id, (perId.get(id) ?? 0) + 1);
      expect([...perId.keys()].sort()).toEqual([...eventIds].sort());
      expect([...perId.values()].filter((n) => n !== 1)).toEqual([]);
      const attempts: Array<{ attempts: number; n: number }> = await t.app.get(DataSource).query(
        `SELECT attempts, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1
            GROUP BY attempts`,
        [hook.webhookId],
      );
      expect(attempts).toEqual([{ attempts: 1, n: 500 }]);
      console.info(
        `scale-out: 500 stagings in ${stagedMs} ms; all delivered ${deliveredMs} ms after the ` +
          `first staging; ${receiver.peakInFlight} sends in flight at once at the receiver ` +
          `(one worker holds at most ${MAX_IN_FLIGHT_PER_TENANT} of one tenant)`,
      );
    } finally {
      await receiver.close();
    }
  }, 90_000);
});

interface HoldingReceiver {
  url: string;
  /** The `webhook-id` of every request received, in arrival order. */
  webhookIds: string[];
  /** True once more than `threshold` requests were held in flight together. */
  readonly released: boolean;
  readonly peakInFlight: number;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that holds every request unanswered until more than `threshold`
 * are in flight together, then answers them all (200) and every later one at once.
 */
async function startHoldingReceiver(threshold: number): Promise<HoldingReceiver> {
  const webhookIds: string[] = [];
  const held: http.ServerResponse[] = [];
  let released = false;
  let peakInFlight = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      webhookIds.push(String(req.headers['webhook-id']));
      if (released) {
        res.writeHead(200).end('ok');
        return;
      }
      held.push(res);
      peakInFlight = Math.max(peakInFlight, held.length);
      if (held.length > threshold) {
        released = true;
        for (const r of held.splice(0)) r.writeHead(200).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    webhookIds,
    get released() {
      return released;
    },
    get peakInFlight() {
      return peakInFlight;
    },
    async close() {
      for (const r of held.splice(0)) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs `task(0..count-1)` with at most `width` in flight; results in index order. */
async function mapPool<T>(
  count: number,
  width: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}
