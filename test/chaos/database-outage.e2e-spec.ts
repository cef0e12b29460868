import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import {
  type EmbeddedDatabase,
  startEmbeddedDatabase,
} from '../../src/common/database/embedded-database.js';
import { runMigrations } from '../../src/common/database/migrate.js';
import { startTestApp } from '../support/app.js';
import { createCaller, type TestCaller } from '../support/factories.js';
import { createDocument, createProject } from '../support/read-factories.js';
import {
  freePort,
  type ServiceProcess,
  startService,
  timedFetch,
} from '../support/service-process.js';
import { createWebhook, waitFor } from '../support/webhook-factories.js';
import {
  type ChaosReceiver,
  duplicatesIn,
  newSecretKey,
  printFigures,
  serviceEnv,
  sleep,
  startChaosReceiver,
} from './support.js';

/** How long the database stays down while the load runs against the service. */
const OUTAGE_MS = 4_000;
const REQUEST_TIMEOUT_MS = 10_000;
const RECOVERY_DEADLINE_MS = 30_000;

type Phase = 'up' | 'stopping' | 'down' | 'restarting' | 'recovered';

interface Outcome {
  phase: Phase;
  kind: 'read' | 'stage';
  /** HTTP status, or how the request failed without one. */
  status: number | 'timeout' | 'error';
  code?: string;
  contentType?: string;
  ms: number;
}

/**
 * A private PostgreSQL (never the machine's shared one) is stopped and started again under a
 * light load; the service must answer 503 problem bodies meanwhile and recover by itself.
 */
// for each test and hook of this file
jest.setTimeout(120_000);

describe('database outage: PostgreSQL stopped and restarted under load', () => {
  const secretKey = newSecretKey();
  const log = pino({ level: 'warn' });
  let dir: string;
  let port: number;
  let db: EmbeddedDatabase | undefined;
  let receiver: ChaosReceiver;
  let service: ServiceProcess | undefined;
  let caller: TestCaller;
  let documentId: number;

  beforeAll(async () => {
    // under the system temp dir: the embedded server runs as the postgres user and must reach it
    dir = await mkdtemp(join(tmpdir(), 'grc-chaos-pg-'));
    await chmod(dir, 0o755);
    port = await freePort();
    db = await startEmbeddedDatabase(dir, port, log);
    await runMigrations(db.adminUrl);
    receiver = await startChaosReceiver();
    const seed = await startTestApp(
      { WEBHOOK_SECRET_KEY: secretKey },
      {
        url: db.url,
        directUrl: db.url,
        env: { DATABASE_URL: db.url },
        drop: async () => undefined,
      },
    );
    try {
      caller = await createCaller(seed.app);
      // first, so that every event of the tenant has a delivery
      await createWebhook(seed.baseUrl, caller.auth, receiver.url('/outage'));
      const projectId = await createProject(seed.app, caller.tenantId);
      ({ documentId } = await createDocument(seed.app, caller.tenantId, projectId));
    } finally {
      await seed.close();
    }
  });
  afterAll(async () => {
    if (service?.alive()) await service.kill();
    await receiver?.close();
    await db?.stop().catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 problem bodies while it is down, never hangs or crashes, and recovers', async () => {
    service = await startService(serviceEnv(db!.url, secretKey));
    const base = service.baseUrl;
    let phase: Phase = 'up';
    const outcomes: Outcome[] = [];
    const acked: number[] = [];
    let running = true;
    let n = 0;

    const one = async (kind: 'read' | 'stage'): Promise<void> => {
      const sentIn = phase;
      const started = Date.now();
      n += 1;
      const res = await timedFetch(
        kind === 'read'
          ? `${base}/api/v1/documents/${documentId}`
          : `${base}/api/v1/documents/${documentId}/external-revisions`,
        {
          method: kind === 'read' ? 'GET' : 'POST',
          headers: { authorization: caller.auth, 'content-type': 'application/json' },
          body: kind === 'read' ? undefined : JSON.stringify({ content: { body: `outage ${n}` } }),
          timeoutMs: REQUEST_TIMEOUT_MS,
        },
      );
      const ms = Date.now() - started;
      if (res === 'timeout' || res instanceof Error) {
        outcomes.push({
          phase: sentIn,
          kind,
          status: res === 'timeout' ? 'timeout' : 'error',
          ms,
        });
        return;
      }
      const text = await res.text();
      let body: { code?: string; revisionId?: number } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // kept empty: the assertions below name the content type
      }
      if (res.status === 201 && body.revisionId) acked.push(body.revisionId);
      outcomes.push({
        phase: sentIn,
        kind,
        status: res.status,
        code: body.code,
        contentType: res.headers.get('content-type') ?? undefined,
        ms,
      });
    };
    // light load: two clients, one reading, one staging, a request every 100 ms each
    const loop = async (kind: 'read' | 'stage') => {
      while (running) {
        await Promise.all([one(kind), sleep(100)]);
      }
    };
    const loops = [loop('read'), loop('stage')];
    const ready = () => timedFetch(`${base}/health/ready`, { timeoutMs: REQUEST_TIMEOUT_MS });

    await waitFor(() => acked.length >= 5, 10_000, 'stagings before the outage');
    phase = 'stopping';
    await db!.stop();
    db = undefined;
    const stoppedAt = Date.now();
    await waitFor(
      async () => {
        const res = await ready();
        return typeof res === 'object' && !(res instanceof Error) && res.status === 503;
      },
      REQUEST_TIMEOUT_MS,
      'readiness 503',
    );
    const readyDownMs = Date.now() - stoppedAt;
    phase = 'down';
    await sleep(OUTAGE_MS);
    const readyWhileDown = await ready();
    expect(service.alive()).toBe(true);

    phase = 'restarting';
    db = await startEmbeddedDatabase(dir, port, log);
    const restartedAt = Date.now();
    await waitFor(
      async () => {
        const res = await ready();
        return typeof res === 'object' && !(res instanceof Error) && res.status === 200;
      },
      RECOVERY_DEADLINE_MS,
      'readiness 200 after the restart',
    );
    const readyAgainMs = Date.now() - restartedAt;
    phase = 'recovered';
    const recoveredFrom = outcomes.length;
    await waitFor(
      () => outcomes.slice(recoveredFrom).filter((o) => o.status === 201).length >= 5,
      RECOVERY_DEADLINE_MS,
      'stagings after the recovery',
    );
    running = false;
    await Promise.all(loops);

    const down = outcomes.filter((o) => o.phase === 'down');
    const hung = outcomes.filter((o) => o.status === 'timeout' || o.status === 'error');
    const badWhileDown = down.filter(
      (o) =>
        o.status !== 503 ||
        o.code !== 'service_unavailable' ||
        !o.contentType?.startsWith('application/problem+json'),
    );
    const failedAfter = outcomes
      .filter((o) => o.phase === 'recovered')
      .filter((o) => typeof o.status !== 'number' || o.status >= 300);
    const serverErrors = outcomes.filter(
      (o) => typeof o.status === 'number' && o.status >= 500 && o.status !== 503,
    );

    // every acknowledged staging survived, and the worker delivered every event after all
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let stored: number;
    let events: string[];
    try {
      stored = (
        await client.query('SELECT count(*)::int AS n FROM external_revisions WHERE id = ANY($1)', [
          acked,
        ])
      ).rows[0].n as number;
      events = (await client.query('SELECT event_id FROM events')).rows.map(
        (r: { event_id: string }) => r.event_id,
      );
    } finally {
      await client.end();
    }
    const undelivered = () => events.filter((id) => !receiver.delivered('/outage').has(id));
    await waitFor(() => undelivered().length === 0, 15_000, 'every event delivered').catch(
      () => undefined,
    );

    printFigures('database-outage', {
      faults: 1,
      requests: outcomes.length,
      requestsWhileDown: down.length,
      answered503WhileDown: down.length - badWhileDown.length,
      slowestWhileDownMs: Math.max(0, ...down.map((o) => o.ms)),
      hungOrDropped: hung.length,
      readiness503AfterMs: readyDownMs,
      recoveredAfterMs: readyAgainMs,
      acknowledgedWrites: acked.length,
      acknowledgedWritesLost: acked.length - stored,
      deliveriesLost: undelivered().length,
      duplicates: duplicatesIn(receiver.delivered('/outage')),
    });

    expect(down.length).toBeGreaterThan(10);
    expect(badWhileDown).toEqual([]);
    expect(hung).toEqual([]);
    expect(serverErrors).toEqual([]);
    expect(typeof readyWhileDown === 'object' && !(readyWhileDown instanceof Error)).toBe(true);
    expect((readyWhileDown as Response).status).toBe(503);
    expect(failedAfter).toEqual([]);
    expect(acked.length - stored).toBe(0);
    expect(undelivered()).toEqual([]);
    expect(service.alive()).toBe(true);
    const exit = await service.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
