import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { digest } from '../../src/common/crypto/tokens.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createCaller, type TestCaller } from '../support/factories.js';
import { createDocument, createProject } from '../support/read-factories.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { createWebhook, waitFor } from '../support/webhook-factories.js';
import {
  type ChaosReceiver,
  duplicatesIn,
  newSecretKey,
  printFigures,
  serviceEnv,
  startChaosReceiver,
} from './support.js';

const CYCLES = 2;
const DOCS_PER_CYCLE = 24;
const CONCURRENCY = 8;
/** The kill comes after this long under load, or this many acknowledged writes, whichever first. */
const LOAD_MS = 3_000;
const ACKS_BEFORE_KILL = 200;
const PATHS = ['/crash-a', '/crash-b'];

interface Acks {
  revisions: number[];
  checkouts: string[];
  checkins: string[];
}

interface Doc {
  documentId: number;
  lockToken: string | null;
}

// for each test and hook of this file
jest.setTimeout(120_000);

describe('crash: SIGKILL under load, restart on the same database', () => {
  const secretKey = newSecretKey();
  let seed: TestApp;
  let receiver: ChaosReceiver;
  let caller: TestCaller;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    receiver = await startChaosReceiver();
    // deliveries take a while to answer, so the kill finds some of them `sending`
    for (const path of PATHS) receiver.set(path, { status: 200, delayMs: [50, 500] });
    seed = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey });
    caller = await createCaller(seed.app);
  });
  afterAll(async () => {
    if (service?.alive()) await service.kill();
    await seed?.close();
    await receiver?.close();
  });

  const env = () =>
    serviceEnv(seed.database.url, secretKey, {
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_LEASE_MARGIN_MS: '1000',
      // answers take 50-500 ms: with the default 4 slots per webhook, the ~900 deliveries of a
      // run need about as long as the test waits for them (issue 19's limit, not a loss)
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '16',
    });

  async function send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: any } | null> {
    try {
      const res = await fetch(`${service!.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: caller.auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: await res.json() };
    } catch {
      return null; // the process died under the request: not acknowledged
    }
  }

  it('loses no acknowledged write and no delivery, and leaves nothing `sending`', async () => {
    const ds = seed.app.get(DataSource);
    for (const path of PATHS) await createWebhook(seed.baseUrl, caller.auth, receiver.url(path));
    const acks: Acks = { revisions: [], checkouts: [], checkins: [] };
    let requests = 0;
    let serverErrors = 0;
    let sendingAtRestart = 0;

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const projectId = await createProject(seed.app, caller.tenantId);
      const docs: Doc[] = [];
      for (let i = 0; i < DOCS_PER_CYCLE; i++) {
        const { documentId } = await createDocument(seed.app, caller.tenantId, projectId);
        docs.push({ documentId, lockToken: null });
      }
      service = await startService(env());
      let killed = false;
      let acked = 0;

      // each loop owns its documents, so lock states stay known to it
      const loop = async (mine: Doc[]) => {
        while (!killed) {
          const doc = mine[Math.floor(Math.random() * mine.length)]!;
          const r = Math.random();
          requests += 1;
          const token = doc.lockToken;
          if (token && r < 0.35) {
            const res = await send('POST', `/documents/${doc.documentId}/checkin`, {
              lock_token: token,
            });
            if (res?.status === 200) {
              acks.checkins.push(token);
              doc.lockToken = null;
              acked += 1;
            } else if (res && res.status >= 500) serverErrors += 1;
            // an unanswered checkin leaves the lock state unknown: keep away from this document
            if (!res) mine.splice(mine.indexOf(doc), 1);
          } else if (!token && r < 0.3) {
            const res = await send('POST', `/documents/${doc.documentId}/checkout`, {
              ttl_minutes: 5,
            });
            if (res?.status === 201) {
              doc.lockToken = res.body.lock_token as string;
              acks.checkouts.push(doc.lockToken);
              acked += 1;
            } else if (res && res.status >= 500) serverErrors += 1;
            if (!res) mine.splice(mine.indexOf(doc), 1);
          } else {
            const res = await send(
              'POST',
              `/documents/${doc.documentId}/external-revisions`,
              {
                content: { body: `cycle ${cycle} request ${requests}` },
                source_reference: 'chaos',
              },
              token ? { 'lock-token': token } : {},
            );
            if (res?.status === 201) {
              acks.revisions.push(res.body.revisionId as number);
              acked += 1;
            } else if (res && res.status >= 500) serverErrors += 1;
          }
          if (mine.length === 0) return;
        }
      };
      const loops = Array.from({ length: CONCURRENCY }, (_, i) =>
        loop(docs.filter((_, j) => j % CONCURRENCY === i)),
      );
      const started = Date.now();
      await waitFor(
        () => Date.now() - started > LOAD_MS || acked >= ACKS_BEFORE_KILL,
        LOAD_MS + 5_000,
      );
      await service.kill();
      killed = true;
      await Promise.all(loops);
      const [{ n }] = await ds.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'sending'`,
      );
      sendingAtRestart += n as number;
    }

    // the last restart: the worker must take over what the killed ones held
    service = await startService(env());

    const storedRevisions: Array<{ id: number }> = await ds.query(
      'SELECT id FROM external_revisions WHERE id = ANY($1)',
      [acks.revisions],
    );
    const lockRows: Array<{ token_digest: Buffer; released_at: Date | null }> = await ds.query(
      'SELECT token_digest, released_at FROM document_locks WHERE tenant_id = $1',
      [caller.tenantId],
    );
    const locks = new Map(lockRows.map((l) => [l.token_digest.toString('hex'), l.released_at]));
    const lostRevisions = acks.revisions.length - storedRevisions.length;
    const lostCheckouts = acks.checkouts.filter(
      (t) => !locks.has(digest(t).toString('hex')),
    ).length;
    const lostCheckins = acks.checkins.filter((t) => !locks.get(digest(t).toString('hex'))).length;
    // every acknowledged staging published its event in the same transaction
    const stagedEvents: Array<{ revision_id: number }> = await ds.query(
      `SELECT (payload->'data'->>'revisionId')::int AS revision_id FROM events
        WHERE tenant_id = $1 AND type = 'external_revision.staged'`,
      [caller.tenantId],
    );
    const withEvent = new Set(stagedEvents.map((e) => e.revision_id));
    const revisionsWithoutEvent = acks.revisions.filter((id) => !withEvent.has(id)).length;

    const events: Array<{ event_id: string }> = await ds.query(
      'SELECT event_id FROM events WHERE tenant_id = $1',
      [caller.tenantId],
    );
    const undelivered = () =>
      PATHS.flatMap((path) => events.filter((e) => !receiver.delivered(path).has(e.event_id)));
    await waitFor(() => undelivered().length === 0, 30_000, 'every event delivered').catch(
      () => undefined,
    );
    const deliveriesLost = undelivered().length;
    await waitFor(
      async () => {
        const [{ n }] = await ds.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'succeeded'`,
        );
        return n === 0;
      },
      15_000,
      'every delivery succeeded',
    );
    const [{ stale }] = await ds.query(
      `SELECT count(*)::int AS stale FROM webhook_deliveries
        WHERE status = 'sending' AND lease_expires_at < now()`,
    );
    const duplicates = PATHS.reduce((n, path) => n + duplicatesIn(receiver.delivered(path)), 0);
    const acknowledgedWritesLost = lostRevisions + lostCheckouts + lostCheckins;

    printFigures('crash', {
      faults: CYCLES,
      requests,
      acknowledgedWrites: acks.revisions.length + acks.checkouts.length + acks.checkins.length,
      acknowledgedWritesLost,
      events: events.length,
      deliveries: events.length * PATHS.length,
      sendingAtKill: sendingAtRestart,
      deliveriesLost,
      duplicates,
    });

    expect(acks.revisions.length).toBeGreaterThan(0);
    expect(acks.checkouts.length).toBeGreaterThan(0);
    expect(acks.checkins.length).toBeGreaterThan(0);
    expect(serverErrors).toBe(0);
    expect({ lostRevisions, lostCheckouts, lostCheckins, revisionsWithoutEvent }).toEqual({
      lostRevisions: 0,
      lostCheckouts: 0,
      lostCheckins: 0,
      revisionsWithoutEvent: 0,
    });
    expect(deliveriesLost).toBe(0);
    expect(stale).toBe(0);
    expect(service.alive()).toBe(true);
  });
});
