import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import {
  embeddedDatabaseDir,
  runningPostmaster,
} from '../../src/common/database/embedded-database.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createCaller, type TestCaller } from '../support/factories.js';
import { createDocument, createProject } from '../support/read-factories.js';
import { freePort, type ServiceProcess, startService } from '../support/service-process.js';
import { createWebhook, publishEvents, waitFor } from '../support/webhook-factories.js';
import {
  type ChaosReceiver,
  duplicatesIn,
  newSecretKey,
  printFigures,
  serviceEnv,
  startChaosReceiver,
} from './support.js';

const EXIT_DEADLINE_MS = 20_000;

/**
 * A request whose body arrives in two halves: the first now, the second after `gapMs`, so the
 * request is in flight at the server for that long. Resolves with the status and the body.
 */
function slowRequest(
  url: string,
  method: string,
  body: string,
  headers: Record<string, string>,
  gapMs: number,
): {
  sentFirstHalf: Promise<void>;
  response: Promise<{ status: number; body: string; connection: string | undefined }>;
} {
  let firstHalf!: () => void;
  const sentFirstHalf = new Promise<void>((ok) => (firstHalf = ok));
  const response = new Promise<{ status: number; body: string; connection: string | undefined }>(
    (ok, fail) => {
      const req = http.request(url, {
        method,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          ok({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            connection: res.headers.connection,
          }),
        );
        res.on('error', fail);
      });
      req.on('error', fail);
      req.setTimeout(15_000, () => req.destroy(new Error('request timed out')));
      const buffer = Buffer.from(body);
      const half = Math.floor(buffer.length / 2);
      req.write(buffer.subarray(0, half), () => {
        firstHalf();
        setTimeout(() => req.end(buffer.subarray(half)), gapMs);
      });
    },
  );
  return { sentFirstHalf, response };
}

/** Processes whose command line mentions `needle` (e.g. a postgres left on a data directory). */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.replace(/\0/g, ' ').includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

// for each test and hook of this file
jest.setTimeout(120_000);

describe('graceful shutdown on SIGTERM', () => {
  const secretKey = newSecretKey();
  let seed: TestApp;
  let receiver: ChaosReceiver;
  let caller: TestCaller;
  const services: ServiceProcess[] = [];
  let dataDir: string | undefined;

  beforeAll(async () => {
    receiver = await startChaosReceiver();
    // deliveries are in flight for a second when the signal comes
    receiver.set('/slow', { status: 200, delayMs: 1_000 });
    seed = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey });
    caller = await createCaller(seed.app);
  });
  afterAll(async () => {
    for (const s of services) if (s.alive()) await s.kill();
    await seed?.close();
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('finishes in-flight requests and deliveries, releases its claims, exits 0', async () => {
    await createWebhook(seed.baseUrl, caller.auth, receiver.url('/slow'));
    const projectId = await createProject(seed.app, caller.tenantId);
    const { documentId } = await createDocument(seed.app, caller.tenantId, projectId);
    // ten sends in flight to one webhook when the signal comes: above the default per-endpoint
    // limit of 4 (issue 19), which this test is not about
    const service = await startService(
      serviceEnv(seed.database.url, secretKey, { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '16' }),
    );
    services.push(service);
    const ds = seed.app.get(DataSource);

    const inFlightEvents = await publishEvents(seed.app, caller.tenantId, 10);
    await waitFor(() => receiver.inFlight() >= 10, 10_000, 'deliveries in flight');

    // a large staging whose second half arrives after the signal
    const staging = slowRequest(
      `${service.baseUrl}/api/v1/documents/${documentId}/external-revisions`,
      'POST',
      JSON.stringify({
        content: { body: 'x'.repeat(2 * 1024 * 1024) },
        source_reference: 'graceful',
      }),
      { authorization: caller.auth, 'content-type': 'application/json' },
      700,
    );
    await staging.sentFirstHalf;
    const signalledAt = Date.now();
    const exit = service.stop('SIGTERM', EXIT_DEADLINE_MS);
    const { status, body, connection } = await staging.response;
    const { code, signal } = await exit;
    const exitMs = Date.now() - signalledAt;

    expect(status).toBe(201);
    // a keep-alive connection would hold the closing server open until it idles out
    expect(connection).toBe('close');
    const revisionId = (JSON.parse(body) as { revisionId: number }).revisionId;
    const [stored] = await ds.query('SELECT status FROM external_revisions WHERE id = $1', [
      revisionId,
    ]);
    expect(stored).toEqual({ status: 'staged' });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // answered while the service shut down: its audit line was written before the pool closed
    const audited = await ds.query(
      `SELECT outcome FROM audit_log WHERE tenant_id = $1 AND action = 'revision.stage'`,
      [caller.tenantId],
    );
    expect(audited).toEqual([{ outcome: 'success' }]);

    const deliveryRows = (): Promise<
      Array<{ status: string; lease_expires_at: Date | null; event_id: string }>
    > =>
      ds.query(
        `SELECT d.status, d.lease_expires_at, e.event_id FROM webhook_deliveries d
           JOIN events e ON e.id = d.event_id WHERE d.tenant_id = $1`,
        [caller.tenantId],
      );
    const afterExit = await deliveryRows();
    const heldByTheDead = afterExit.filter(
      (r) => r.status === 'sending' || r.lease_expires_at !== null,
    );
    const sentBeforeExit = afterExit.filter(
      (r) => inFlightEvents.includes(r.event_id) && r.status === 'succeeded',
    ).length;
    expect(heldByTheDead).toEqual([]);
    expect(afterExit.every((r) => ['succeeded', 'queued', 'retry'].includes(r.status))).toBe(true);

    // a new process delivers whatever was still pending, and nothing delivered is sent again
    const next = await startService(serviceEnv(seed.database.url, secretKey));
    services.push(next);
    await waitFor(
      async () => (await deliveryRows()).every((r) => r.status === 'succeeded'),
      15_000,
      'pending deliveries after the restart',
    ).catch(() => undefined);
    const events = (await deliveryRows()).map((r) => r.event_id);
    const deliveriesLost = events.filter((id) => !receiver.delivered('/slow').has(id)).length;
    const duplicates = duplicatesIn(receiver.delivered('/slow'));
    expect((await next.stop('SIGTERM', EXIT_DEADLINE_MS)).code).toBe(0);

    printFigures('graceful-shutdown', {
      faults: 1,
      requests: 1,
      inFlightDeliveriesAtSignal: inFlightEvents.length,
      finishedBeforeExit: sentBeforeExit,
      exitMs,
      acknowledgedWritesLost: stored ? 0 : 1,
      deliveriesLost,
      duplicates,
    });
    expect(sentBeforeExit).toBe(inFlightEvents.length);
    expect(exitMs).toBeLessThan(EXIT_DEADLINE_MS);
    expect(deliveriesLost).toBe(0);
    expect(duplicates).toBe(0);
  });

  it('stops its embedded PostgreSQL too: no postgres process is left behind; its admin socket was there while it ran', async () => {
    // under the system temp dir: the embedded server runs as the postgres user and must reach it
    dataDir = await mkdtemp(join(tmpdir(), 'grc-chaos-data-'));
    await chmod(dataDir, 0o755);
    const service = await startService(
      {
        ...serviceEnv(undefined, secretKey),
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(await freePort()),
      },
      { readyTimeoutMs: 90_000 },
    );
    services.push(service);
    // the CLI's way in while the service runs: <DATA_DIR>/admin.sock, owner-only
    const socket = await stat(join(dataDir, 'admin.sock'));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    const postmaster = runningPostmaster(embeddedDatabaseDir(dataDir));
    expect(postmaster).not.toBeNull();
    expect(await processesMentioning(dataDir)).not.toEqual([]);

    // an unauthenticated request in flight at the signal still gets its normal answer
    const token = slowRequest(
      `${service.baseUrl}/api/v1/oauth/token`,
      'POST',
      JSON.stringify({
        grant_type: 'client_credentials',
        client_id: 'gci_unknown',
        client_secret: 'not-a-secret',
      }),
      { 'content-type': 'application/json' },
      500,
    );
    await token.sentFirstHalf;
    const signalledAt = Date.now();
    const exit = service.stop('SIGTERM', EXIT_DEADLINE_MS);
    const answer = await token.response;
    const { code, signal } = await exit;
    const exitMs = Date.now() - signalledAt;

    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_client' });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // the postmaster's children may need a moment after it has gone
    await waitFor(
      async () => (await processesMentioning(dataDir!)).length === 0,
      5_000,
      'postgres gone',
    ).catch(() => undefined);
    const left = await processesMentioning(dataDir);
    let postmasterAlive = false;
    try {
      process.kill(postmaster!.pid, 0);
      postmasterAlive = true;
    } catch {
      postmasterAlive = false;
    }
    printFigures('graceful-shutdown-embedded', {
      faults: 1,
      requests: 1,
      exitMs,
      postgresLeft: left.length,
      acknowledgedWritesLost: 'n/a',
      deliveriesLost: 'n/a',
      duplicates: 'n/a',
    });
    expect(postmasterAlive).toBe(false);
    expect(left).toEqual([]);
    expect(runningPostmaster(embeddedDatabaseDir(dataDir))).toBeNull();
    await expect(stat(join(dataDir, 'admin.sock'))).rejects.toThrow(/ENOENT/);
  });
});
