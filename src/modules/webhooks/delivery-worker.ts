import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../common/config/app-config.js';
import { SecretBox } from '../../common/crypto/secret-box.js';
import { ListenConnection, listenUrl } from '../../common/database/listen-connection.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../events/events.service.js';
import { nextRetryDelayMs, parseRetrySchedule } from './delivery/retry-schedule.js';
import { type AttemptResult, WebhookSender } from './delivery/webhook-sender.js';
import { updatedRows } from './sql-rows.js';

/** Sends in flight at once per process. */
export const MAX_IN_FLIGHT = 64;
/** Below this many free slots a busy worker waits for more sends to finish before claiming. */
const MIN_CLAIM = MAX_IN_FLIGHT / 4;
/** Results written per statement. */
const RESULT_BATCH = 500;
const POLL_INTERVAL_MS = 1_000;
const LISTEN_RECONNECT_MS = 1_000;

interface ClaimedRow {
  id: string;
  tenant_id: number;
  attempts: number;
  /** The exact lease value written by the claim; the result write is guarded by it. */
  lease: string;
  event_id: string;
  body: string;
  endpoint_url: string;
  secret_sealed: Buffer;
}

interface AttemptOutcome {
  id: string;
  tenantId: number;
  lease: string;
  nextStatus: 'succeeded' | 'retry' | 'failed';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  /** Delay before the next attempt; null when there is none. */
  delayMs: number | null;
  /** 410 Gone: pause the webhook and hold the delivery. */
  gone: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Drains the `webhook_deliveries` outbox. Any number of processes may run it on one database:
 * a claim marks rows `sending` with a lease under `FOR UPDATE SKIP LOCKED`, so no two workers hold
 * the same row, and every result write is guarded by that exact lease, so a worker whose lease ran
 * out (and whose row was re-claimed) cannot overwrite the newer attempt's state. A crashed
 * worker's rows come back when their lease expires: delivery is at-least-once.
 *
 * Wake-ups come from `LISTEN webhook_deliveries` (the outbox notifies on commit) and a 1 s poll
 * that also picks up retries falling due and expired leases.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly schedule: number[];
  private readonly leaseSeconds: number;
  private sender: WebhookSender | null = null;
  private running = false;
  /** Attempts made by this process (observability; tests use it to see both replicas work). */
  readonly stats = { attempts: 0 };

  private listener: ListenConnection | null = null;

  private pumping: Promise<void> | null = null;
  private wakeAgain = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed rows whose result is not written yet, by id → lease (released on shutdown). */
  private readonly leased = new Map<string, string>();

  private pending: AttemptOutcome[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly secretBox: SecretBox,
  ) {
    this.schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
    // A lease outlives any attempt by the margin, so only a dead worker's lease ever expires.
    this.leaseSeconds = (config.WEBHOOK_TIMEOUT_MS + config.WEBHOOK_LEASE_MARGIN_MS) / 1000;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.WORKERS_ENABLED) return;
    this.sender = new WebhookSender({
      timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      allowHttp: this.config.WEBHOOK_ALLOW_HTTP,
      allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    });
    this.running = true;
    const url = listenUrl(this.config);
    // without one (a transaction pooler and no DATABASE_LISTEN_URL) the 1 s poll alone carries on
    this.listener =
      url === undefined
        ? null
        : new ListenConnection({
            connectionString: url,
            channel: WEBHOOK_DELIVERIES_CHANNEL,
            applicationName: 'grc-webhook-listener',
            logger: this.logger,
            reconnectMs: LISTEN_RECONNECT_MS,
            onNotification: () => this.wake(),
            // anything committed while we were not listening is picked up now
            onListening: () => this.wake(),
            // the 1 s poll carries on meanwhile
            onLost: () => undefined,
          });
    await this.listener?.start();
    this.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.listener?.stop();
    this.listener = null;
    await this.pumping;
    await Promise.allSettled([...this.inFlight]);
    while (this.flushing || this.pending.length > 0) {
      this.requestFlush();
      await this.flushing;
    }
    await this.releaseLeases();
    await this.sender?.close();
    this.sender = null;
  }

  @Interval('webhook-delivery-poll', POLL_INTERVAL_MS)
  poll(): void {
    this.wake();
  }

  /** Claims and sends due deliveries until none are due or the in-flight limit is reached. */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.wakeAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      // a wake-up that arrived after the loop's last check
      if (this.wakeAgain) this.wake();
    });
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.wakeAgain = false;
        while (this.running) {
          const wanted = MAX_IN_FLIGHT - this.inFlight.size;
          // Under load, claim in sizeable batches rather than one row per finished send.
          if (wanted < MIN_CLAIM && this.inFlight.size > 0) break;
          const rows = await this.claim(wanted);
          for (const row of rows) this.dispatch(row);
          if (rows.length < wanted) break;
        }
      } while (this.wakeAgain && this.running);
    } catch (error) {
      this.logger.error(`claiming webhook deliveries failed: ${(error as Error).message}`);
    }
  }

  private async claim(limit: number): Promise<ClaimedRow[]> {
    // Only active webhooks: deliveries of paused ones stay held. An expired lease means the
    // worker holding it died; the row is taken over. Two branches so that each uses its own
    // partial index (an OR of both would scan and sort every pending row).
    const raw: unknown = await this.dataSource.query(
      `WITH due AS (
         SELECT d.id
           FROM webhook_deliveries d
           JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'active'
          WHERE d.status IN ('queued', 'retry') AND d.next_attempt_at <= now()
          ORDER BY d.next_attempt_at
          LIMIT $1
          FOR UPDATE OF d SKIP LOCKED
       ), expired AS (
         SELECT d.id
           FROM webhook_deliveries d
           JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'active'
          WHERE d.status = 'sending' AND d.lease_expires_at < now()
          LIMIT $1
          FOR UPDATE OF d SKIP LOCKED
       ), picked AS (
         SELECT id FROM expired UNION ALL SELECT id FROM due LIMIT $1
       )
       UPDATE webhook_deliveries d
          SET status = 'sending',
              lease_expires_at = clock_timestamp() + make_interval(secs => $2),
              updated_at = now()
         FROM picked, webhooks w, events e
        WHERE d.id = picked.id AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.tenant_id, d.attempts, d.lease_expires_at::text AS lease,
                 e.event_id, e.payload::text AS body, w.endpoint_url, w.secret_sealed`,
      [limit, this.leaseSeconds],
    );
    return updatedRows<ClaimedRow>(raw);
  }

  private dispatch(row: ClaimedRow): void {
    this.leased.set(row.id, row.lease);
    const sending = this.deliver(row).finally(() => {
      this.inFlight.delete(sending);
      // Claiming does not wait for results to be written: the lease guards the row meanwhile.
      if (MAX_IN_FLIGHT - this.inFlight.size >= MIN_CLAIM) this.wake();
    });
    this.inFlight.add(sending);
  }

  private async deliver(row: ClaimedRow): Promise<void> {
    const attemptedAt = new Date();
    let result: AttemptResult;
    try {
      result = await this.sender!.send({
        url: row.endpoint_url,
        secret: this.secretBox.open(row.secret_sealed),
        eventId: row.event_id,
        body: row.body,
        timestamp: attemptedAt,
      });
    } catch (error) {
      this.logger.error(`webhook delivery ${row.id} failed unexpectedly: ${(error as Error).name}`);
      result = {
        outcome: 'failed',
        statusCode: null,
        error: 'internal error',
        durationMs: Date.now() - attemptedAt.getTime(),
        retryAfterMs: null,
      };
    }
    this.stats.attempts += 1;
    this.pending.push(this.outcome(row, result, attemptedAt));
    this.requestFlush();
  }

  private outcome(row: ClaimedRow, result: AttemptResult, attemptedAt: Date): AttemptOutcome {
    const base = {
      id: row.id,
      tenantId: row.tenant_id,
      lease: row.lease,
      responseStatus: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      attemptedAt: attemptedAt.toISOString(),
      gone: false,
    };
    if (result.outcome === 'succeeded') {
      return { ...base, nextStatus: 'succeeded', delayMs: null };
    }
    if (result.outcome === 'gone') {
      // The receiver asked to stop: pause the webhook; the delivery waits for re-activation.
      return { ...base, nextStatus: 'retry', delayMs: 0, gone: true };
    }
    const delay = nextRetryDelayMs(this.schedule, row.attempts + 1, result.retryAfterMs);
    return delay === null
      ? { ...base, nextStatus: 'failed', delayMs: null }
      : { ...base, nextStatus: 'retry', delayMs: delay };
  }

  /** One writer at a time; results arriving meanwhile are written together in the next round. */
  private requestFlush(): void {
    if (this.flushing) return;
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = null;
    });
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, RESULT_BATCH);
      for (let attempt = 1; ; attempt++) {
        try {
          await this.writeResults(batch);
          break;
        } catch (error) {
          if (attempt >= 3) {
            // The rows stay `sending`; their lease expires and they are attempted again.
            this.logger.error(
              `recording ${batch.length} webhook attempts failed: ${(error as Error).message}`,
            );
            break;
          }
          await sleep(200 * attempt);
        }
      }
      for (const outcome of batch) {
        if (this.leased.get(outcome.id) === outcome.lease) this.leased.delete(outcome.id);
      }
      // Slots were freed: look for more work.
      this.wake();
    }
  }

  /**
   * Records every attempt and moves each delivery to its next state in one statement. A delivery
   * is only moved while it still carries the lease this worker claimed it with; if the webhook
   * was revoked meanwhile, an unsuccessful delivery is cancelled instead of retried.
   */
  private async writeResults(batch: AttemptOutcome[]): Promise<void> {
    await this.dataSource.query(
      `WITH r AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::text[], $5::int[],
                              $6::text[], $7::int[], $8::timestamptz[], $9::bigint[], $10::bool[])
           AS r(id, tenant_id, lease, next_status, response_status, error, duration_ms,
                attempted_at, delay_ms, gone)
       ), attempts AS (
         INSERT INTO webhook_delivery_attempts
                (tenant_id, delivery_id, attempted_at, response_status, error, duration_ms)
         SELECT tenant_id, id, attempted_at, response_status, error, duration_ms FROM r
       ), moved AS (
         UPDATE webhook_deliveries d
            SET status = CASE WHEN r.next_status <> 'succeeded' AND w.status = 'revoked'
                              THEN 'cancelled' ELSE r.next_status END,
                attempts = d.attempts + 1,
                last_attempt_at = r.attempted_at,
                last_response_status = r.response_status,
                last_error = r.error,
                next_attempt_at = CASE WHEN r.delay_ms IS NULL THEN d.next_attempt_at
                                       ELSE now() + r.delay_ms * interval '1 millisecond' END,
                lease_expires_at = NULL,
                updated_at = now()
           FROM r, webhooks w
          WHERE d.id = r.id AND d.status = 'sending' AND d.lease_expires_at = r.lease
            AND w.id = d.webhook_id
         RETURNING d.webhook_id, r.gone
       )
       UPDATE webhooks w SET status = 'paused', updated_at = now()
        WHERE w.status = 'active' AND w.id IN (SELECT webhook_id FROM moved WHERE gone)`,
      [
        batch.map((o) => o.id),
        batch.map((o) => o.tenantId),
        batch.map((o) => o.lease),
        batch.map((o) => o.nextStatus),
        batch.map((o) => o.responseStatus),
        batch.map((o) => o.error),
        batch.map((o) => o.durationMs),
        batch.map((o) => o.attemptedAt),
        batch.map((o) => o.delayMs),
        batch.map((o) => o.gone),
      ],
    );
  }

  /** Hands back rows claimed but not recorded (a failed write), so another worker takes them now. */
  private async releaseLeases(): Promise<void> {
    if (this.leased.size === 0) return;
    const entries = [...this.leased];
    this.leased.clear();
    try {
      await this.dataSource.query(
        `UPDATE webhook_deliveries d
            SET status = CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END,
                lease_expires_at = NULL, next_attempt_at = now(), updated_at = now()
           FROM unnest($1::bigint[], $2::timestamptz[]) AS r(id, lease)
          WHERE d.id = r.id AND d.status = 'sending' AND d.lease_expires_at = r.lease`,
        [entries.map(([id]) => id), entries.map(([, lease]) => lease)],
      );
    } catch (error) {
      this.logger.warn(`releasing webhook leases failed: ${(error as Error).message}`);
    }
  }
}
