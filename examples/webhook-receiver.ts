/**
 * A minimal webhook receiver: verifies the Standard Webhooks signature of every delivery, answers
 * 2xx quickly, and handles each event once although deliveries are at-least-once.
 *
 *   WEBHOOK_SECRET=whsec_… PORT=8080 npm run example:webhook-receiver
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './api-types.js';

/**
 * The payload of any event, from the typed client (`npm run openapi`): a union discriminated by
 * `type`, so `switch (event.type)` narrows `event.data` to that type's fields.
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** One line about an event, reading the fields its type carries (no casts). */
export function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'external_revision.staged':
    case 'external_revision.accepted':
    case 'external_revision.rejected':
    case 'external_revision.superseded':
      return (
        `candidate ${event.data.revisionId} of document ${event.data.documentId} is ` +
        `${event.data.status}` +
        (event.data.resulting_version_id === null
          ? ''
          : ` (version ${event.data.resulting_version_id})`)
      );
    case 'document.version_created':
      return `document ${event.data.documentId} has version ${event.data.number} (${event.data.content_hash})`;
    case 'document.checked_out':
      return `document ${event.data.documentId} checked out until ${event.data.expires_at}`;
    case 'document.checked_in':
      return `document ${event.data.documentId} checked in at ${event.data.released_at}`;
    case 'document.lock_expired':
      return `the lock of document ${event.data.documentId} expired at ${event.data.expired_at}`;
    case 'webhook.test':
      return `test event for webhook ${event.data.webhookId}`;
    default: {
      // a type added to the API after this receiver was built: a compile error here on regeneration
      const unknown: never = event;
      return `unknown event type ${(unknown as { type: string }).type}`;
    }
  }
}

export interface ReceiverOptions {
  /** The `whsec_…` secret returned once when the webhook was created. */
  secret: string;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Called once per event id, after its signature verified. */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
  log?: (line: string) => void;
}

export interface RunningReceiver {
  port: number;
  /** Events handled, once each, in arrival order. */
  events: WebhookEvent[];
  /** Deliveries refused: a missing or bad signature, or a timestamp outside ±5 minutes. */
  rejected: number;
  /** Deliveries of an event already handled (a retry or replay), acknowledged and skipped. */
  duplicates: number;
  close(): Promise<void>;
}

/** Upper bound of a delivery body; the service's events are a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

export async function startWebhookReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const verifier = new Webhook(options.secret);
  const log = options.log ?? (() => undefined);
  // in production: a unique key in your database, written in the same transaction as the effect
  const seen = new Set<string>();
  const state = { events: [] as WebhookEvent[], rejected: 0, duplicates: 0 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        // verify the exact bytes received: re-serialised JSON would not match the signature
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = {
          'webhook-id': String(req.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        };
        let event: WebhookEvent;
        try {
          event = verifier.verify(body, headers) as WebhookEvent;
        } catch (err) {
          state.rejected += 1;
          log(`refused ${headers['webhook-id'] || '(no id)'}: ${(err as Error).message}`);
          res.writeHead(err instanceof WebhookVerificationError ? 401 : 400).end();
          return;
        }
        const id = headers['webhook-id'];
        if (seen.has(id)) {
          state.duplicates += 1;
          res.writeHead(200).end();
          return;
        }
        try {
          await options.onEvent?.(event);
        } catch (err) {
          // not marked as seen: the service retries, and the next attempt runs the handler again
          log(`handler failed for ${id}: ${(err as Error).message}`);
          res.writeHead(500).end();
          return;
        }
        seen.add(id);
        state.events.push(event);
        log(`${event.type} ${id}: ${describeEvent(event)}`);
        res.writeHead(204).end();
      })();
    });
  });

  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  return {
    port: (server.address() as AddressInfo).port,
    events: state.events,
    get rejected() {
      return state.rejected;
    },
    get duplicates() {
      return state.duplicates;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const secret = process.env['WEBHOOK_SECRET'];
  if (!secret) throw new Error('set WEBHOOK_SECRET (the whsec_… secret of the webhook)');
  const receiver = await startWebhookReceiver({
    secret,
    port: Number(process.env['PORT'] ?? 8080),
    host: process.env['HOST'] ?? '0.0.0.0',
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`listening on port ${receiver.port}\n`);
  const stop = (): void => void receiver.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`webhook-receiver: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
