import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TenantTransactions } from '../../src/common/database/tenant-transactions.js';
import type { EventData } from '../../src/modules/events/event-catalog.js';
import type { EventType } from '../../src/modules/events/event-types.js';
import { WebhookOutbox } from '../../src/modules/webhooks/outbox/webhook-outbox.service.js';
import { payloadProblem } from './event-schemas.js';
import { call } from './http.js';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * What a receiver path answers: a status (with optional headers and body, `ok` by default,
 * optionally only once `after` has settled, then after a delay), or `hang` (never answers).
 */
export type Reply =
  | number
  | {
      status: number;
      headers?: Record<string, string>;
      body?: string | Buffer;
      delayMs?: number;
      after?: Promise<unknown>;
    }
  | 'hang';

/** A real HTTP receiver on 127.0.0.1 that records every request and answers per path. */
export interface Receiver {
  url(path: string): string;
  port: number;
  received: ReceivedRequest[];
  on(path: string): ReceivedRequest[];
  /** The most requests to paths starting with `prefix` that were open together so far. */
  peakInFlight(prefix: string): number;
  /** What `path` answers from now on; a list answers one request each, its last one repeating. */
  reply(path: string, reply: Reply | Reply[]): void;
  /** Deliveries whose body the OpenAPI document does not describe (see event-schemas.ts). */
  undocumented: string[];
  /** Stops the receiver; fails if any delivery it got was `undocumented`. */
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const undocumented: string[] = [];
  const replies = new Map<string, Reply[]>();
  const hanging = new Set<http.ServerResponse>();
  const open = new Map<string, number>();
  const peaks = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    open.set(path, (open.get(path) ?? 0) + 1);
    for (const [prefix] of peaks) {
      if (!path.startsWith(prefix)) continue;
      let n = 0;
      for (const [p, count] of open) if (p.startsWith(prefix)) n += count;
      peaks.set(prefix, Math.max(peaks.get(prefix) ?? 0, n));
    }
    // open until the answer is written, not until 'close': a client in this process can read
    // the answer and send its next request before the server's 'close' fires, which would count
    // one request twice; an answer never written (hang, abort) is closed by 'close'
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      open.set(path, (open.get(path) ?? 1) - 1);
    };
    res.on('close', settle);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string') headers[k] = v;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path, headers, body, at: Date.now() });
      // every payload the service sends is checked against its schema in the document
      if (headers['webhook-id'] !== undefined) {
        const problem = payloadProblem(body);
        if (problem) undocumented.push(`${headers['webhook-id']} to ${path}: ${problem}`);
      }
      const queue = replies.get(path);
      const reply = (queue && queue.length > 1 ? queue.shift() : queue?.[0]) ?? 200;
      if (reply === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const {
        status,
        headers: extra,
        body: answerBody = 'ok',
        delayMs,
        after,
      } = typeof reply === 'number'
        ? { status: reply, delayMs: undefined, after: undefined }
        : reply;
      const answer = () => {
        settle();
        res.writeHead(status, { 'content-type': 'text/plain', ...extra });
        res.end(answerBody);
      };
      const answerLater = () => {
        if (delayMs === undefined) answer();
        else setTimeout(answer, delayMs);
      };
      if (after === undefined) answerLater();
      else void after.finally(answerLater);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    on: (path) => received.filter((r) => r.path === path),
    peakInFlight: (prefix) => {
      // counted from the first call on: call it once before the traffic to watch
      if (!peaks.has(prefix)) peaks.set(prefix, 0);
      return peaks.get(prefix) ?? 0;
    },
    reply: (path, reply) => replies.set(path, Array.isArray(reply) ? [...reply] : [reply]),
    undocumented,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (undocumented.length > 0) {
        throw new Error(
          `payloads the OpenAPI document does not describe:\n${undocumented.join('\n')}`,
        );
      }
    },
  };
}

export interface CreatedWebhook {
  webhookId: number;
  secret: string;
  [key: string]: unknown;
}

export async function createWebhook(
  baseUrl: string,
  auth: string,
  endpointUrl: string,
  events: string[] = ['*'],
  name = 'test hook',
): Promise<CreatedWebhook> {
  const res = await call(baseUrl, 'POST', '/webhooks', {
    auth,
    body: { name, endpoint_url: endpointUrl, events },
  });
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return res.body as CreatedWebhook;
}

/** Publishes events in one tenant transaction, as the writing modules do. */
export async function publishEvents<T extends EventType = 'document.checked_in'>(
  app: INestApplication,
  tenantId: number,
  count = 1,
  type: T = 'document.checked_in' as T,
  // the default matches the default type (a `document.checked_in` per event)
  data: (i: number) => EventData<T> = (i) => ({
    documentId: i + 1,
    released_at: new Date().toISOString(),
  }),
): Promise<string[]> {
  const tx = app.get(TenantTransactions);
  const events = app.get(WebhookOutbox);
  return tx.run(tenantId, async () => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await events.publish(tenantId, type, data(i)));
    return ids;
  });
}

export interface DeliveryRow {
  id: string;
  webhook_id: number;
  status: string;
  attempts: number;
  last_response_status: number | null;
  last_error: string | null;
  event_id: string;
}

export function deliveriesOf(app: INestApplication, webhookId: number): Promise<DeliveryRow[]> {
  return app.get(DataSource).query(
    `SELECT d.id, d.webhook_id, d.status, d.attempts, d.last_response_status, d.last_error,
            e.event_id
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.webhook_id = $1 ORDER BY d.id`,
    [webhookId],
  );
}

/** Polls `probe` every 25 ms until it returns a truthy value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
