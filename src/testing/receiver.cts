import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventPayload, EventType } from './events.cjs';
import { parseJsonObject } from './json-object.cjs';

/** One delivery of an event of type `T`, its body typed from the service's event catalog. */
export interface WebhookDelivery<T extends EventType = EventType> {
  /** `webhook-id` header: the event id. */
  id: string;
  type: T;
  /** As received; only a `verified` delivery is known to come from the service. */
  body: EventPayload<T>;
  headers: Record<string, string>;
  /** The Standard Webhooks signature matched one of the receiver's secrets. */
  verified: boolean;
  receivedAt: Date;
}

/** A delivery of any type: narrow it on `type` to get its body's type. */
export type AnyWebhookDelivery = { [T in EventType]: WebhookDelivery<T> }[EventType];

export interface WaitForOptions<T extends EventType> {
  /** Default 15 s. */
  timeoutMs?: number;
  where?: (delivery: WebhookDelivery<T>) => boolean;
}

export interface WebhookReceiver {
  /** Give this as a webhook's `endpoint_url`. */
  url: string;
  /** Every delivery received, verified or not, in arrival order. */
  deliveries: AnyWebhookDelivery[];
  /** Verifies later deliveries with this `whsec_…` secret too (`createTenant` does it for you). */
  addSecret(secret: string): void;
  /** The first verified delivery of `type` (already received or to come), or rejects on timeout. */
  waitFor<T extends EventType>(type: T, options?: WaitForOptions<T>): Promise<WebhookDelivery<T>>;
  /** The status answered to the next deliveries (default 204), e.g. 500 to see retries. */
  respondWith(status: number): void;
  /** Forgets the deliveries received so far (`reset()` does it). */
  clear(): void;
  close(): Promise<void>;
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, key = the secret's bytes. */
function signatureMatches(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const secrets: string[] = [];
  const deliveries: AnyWebhookDelivery[] = [];
  const waiters = new Set<() => void>();
  let status = 204;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string') headers[k] = v;
      }
      const body = parseJsonObject(text) ?? {};
      const verified = secrets.some((s) => signatureMatches(s, headers, text));
      deliveries.push({
        id: headers['webhook-id'] ?? '',
        type: typeof body.type === 'string' ? body.type : '',
        body,
        headers,
        verified,
        receivedAt: new Date(),
        // typed as the catalog says: the body is what came, checked only by `verified`
      } as unknown as AnyWebhookDelivery);
      res.statusCode = verified ? status : 401;
      res.end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;

  const waitFor = <T extends EventType>(
    type: T,
    options: WaitForOptions<T> = {},
  ): Promise<WebhookDelivery<T>> =>
    new Promise((ok, fail) => {
      const find = (): WebhookDelivery<T> | undefined =>
        (deliveries as WebhookDelivery[]).find(
          (d): d is WebhookDelivery<T> =>
            d.verified && d.type === type && (options.where?.(d as WebhookDelivery<T>) ?? true),
        );
      const found = find();
      if (found) return ok(found);
      const timeoutMs = options.timeoutMs ?? 15_000;
      const timer = setTimeout(() => {
        waiters.delete(check);
        fail(
          new Error(
            `no verified ${type} delivery within ${timeoutMs} ms (received: ${
              deliveries.map((d) => `${d.type}${d.verified ? '' : ' (unverified)'}`).join(', ') ||
              'none'
            })`,
          ),
        );
      }, timeoutMs);
      const check = (): void => {
        const hit = find();
        if (!hit) return;
        clearTimeout(timer);
        waiters.delete(check);
        ok(hit);
      };
      waiters.add(check);
    });

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    deliveries,
    addSecret: (secret) => {
      if (!secrets.includes(secret)) secrets.push(secret);
    },
    respondWith: (s) => {
      status = s;
    },
    waitFor,
    clear: () => {
      deliveries.length = 0;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
