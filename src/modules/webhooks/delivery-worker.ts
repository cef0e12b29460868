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
import { MetricsService } from '../metrics/metrics.service.js';
import { nextRetryDelayMs, parseDuration, parseRetrySchedule } from './delivery/retry-schedule.js';
import { type AttemptResult, WebhookSender } from './delivery/webhook-sender.js';
import { updatedRows } from './sql-rows.js';

/** Sends in flight at once per process. */
export const MAX_IN_FLIGHT = 64;
/**
 * Of those, what one tenant may hold: the rest always stays open to the other tenants, however
 * many of this tenant's sends hang on receivers that never answer.
 */
export const MAX_IN_FLIGHT_PER_TENANT = MAX_IN_FLIGHT / 2;
/** Below this many free slots a busy worker waits for more sends to finish before claiming. */
const MIN_CLAIM = MAX_IN_FLIGHT / 4;
/** Results written per statement. */
const RESULT_BATCH = 500;
const POLL_INTERVAL_MS = 1_000;
const LISTEN_RECONNECT_MS = 1_000;

interface ClaimedRow {
  id: string;
  tenant_id: number;
  webhook_id: number;
  attempts: number;
  /** Seconds from the event to this claim, on a first attempt; null on a retry. */
  first_attempt_wait: number | null;
  /** The exact lease value written by the claim; the result write is guarded by it. */
  lease: string;
  event_id: string;
  body: string;
  endpoint_url: string;
  secret_sealed: Buffer;
  /** The secret a rotation replaced, while its grace period lasts (signs too); else null. */
  previous_secret_sealed: Buffer | null;
}

interface AttemptOutcome {
  id: string;
  tenantId: number;
  webhookId: number;
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

interface PausedRow {
  id: number;
  tenant_id: number;
  status_reason: 'gone' | 'failing';
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
 *
 * One receiver must not hold back the others (issue 19): a webhook has at most
 * `WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT` attempts in flight across all workers, fewer while it keeps
 * failing; a claim takes due rows round-robin across tenants and, within a tenant, across its
 * webhooks; and one tenant holds at most half of a process's sends.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly schedule: number[];
  private readonly leaseSeconds: number;
  private readonly disableAfterMs: number;
  /** This process's sends in flight, by tenant (the per-tenant share). */
  private readonly tenantInFlight = new Map<number, number>();
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
    private readonly metrics: MetricsService,
  ) {
    this.schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
    this.disableAfterMs = parseDuration(config.WEBHOOK_DISABLE_AFTER);
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

  /**
   * Claims up to `limit` due deliveries in one statement.
   *
   * It locks the active webhooks that have work (due rows, or leases of a dead worker), skipping
   * those another worker is claiming for or recording results of right now. A locked row is read
   * in its newest committed version, so `in_flight` (kept by triggers, see the migration
   * webhook-endpoint-health) already counts every claim another replica committed: the free slots
   * are the endpoint's limit, halved per failure since its last success (down to one), minus
   * that. Rows of a dead worker's expired lease are taken over first (they are counted already),
   * then the oldest due rows up to the free slots. The candidates are ranked round-robin, first
   * across a tenant's webhooks, then across tenants, kept within each tenant's share of this
   * process, and the first `limit` are claimed. Rows are locked `FOR UPDATE SKIP LOCKED` as
   * before (a replay holding one is skipped).
   */
  private async claim(limit: number): Promise<ClaimedRow[]> {
    const busy = [...this.tenantInFlight].filter(([, n]) => n > 0);
    const raw: unknown = await this.dataSource.query(
      `WITH hooks AS (
         SELECT w.id, w.tenant_id,
                GREATEST(1, $3::int >> LEAST(w.consecutive_failures, 30)) - w.in_flight AS free
           FROM webhooks w
          WHERE w.status = 'active'
            AND (EXISTS (SELECT 1 FROM webhook_deliveries d
                          WHERE d.webhook_id = w.id AND d.status IN ('queued', 'retry')
                            AND d.next_attempt_at <= now())
                 OR EXISTS (SELECT 1 FROM webhook_deliveries d
                             WHERE d.webhook_id = w.id AND d.status = 'sending'
                               AND d.lease_expires_at < now()))
          FOR NO KEY UPDATE OF w SKIP LOCKED
       ), expired AS (
         SELECT d.id, h.id AS webhook_id, h.tenant_id, d.lease_expires_at AS due_at
           FROM hooks h
           CROSS JOIN LATERAL (
             SELECT d.id, d.lease_expires_at FROM webhook_deliveries d
              WHERE d.webhook_id = h.id AND d.status = 'sending' AND d.lease_expires_at < now()
              ORDER BY d.lease_expires_at
              LIMIT $1
              FOR UPDATE OF d SKIP LOCKED) d
       ), due AS (
         SELECT d.id, h.id AS webhook_id, h.tenant_id, d.next_attempt_at AS due_at
           FROM hooks h
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.webhook_id = h.id AND d.status IN ('queued', 'retry')
                AND d.next_attempt_at <= now() AND h.free > 0
              ORDER BY d.next_attempt_at
              LIMIT GREATEST(h.free, 0)
              FOR UPDATE OF d SKIP LOCKED) d
       ), by_hook AS (
         SELECT c.*, row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.due_at, c.id) AS turn
           FROM (SELECT * FROM expired UNION ALL SELECT * FROM due) c
       ), by_tenant AS (
         SELECT b.id, b.due_at,
                row_number() OVER (PARTITION BY b.tenant_id ORDER BY b.turn, b.due_at, b.id)
                  AS turn,
                $4::int - COALESCE(t.in_flight, 0) AS share
           FROM by_hook b
           LEFT JOIN unnest($5::int[], $6::int[]) AS t(tenant_id, in_flight)
             ON t.tenant_id = b.tenant_id
       ), picked AS (
         SELECT id FROM by_tenant WHERE turn <= share ORDER BY turn, due_at, id LIMIT $1
       )
       UPDATE webhook_deliveries d
          SET status = 'sending',
              lease_expires_at = clock_timestamp() + make_interval(secs => $2),
              updated_at = now()
         FROM picked, webhooks w, events e
        WHERE d.id = picked.id AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.tenant_id, d.webhook_id, d.attempts,
                 CASE WHEN d.attempts = 0
                      THEN extract(epoch FROM clock_timestamp() - e.created_at)::float8
                 END AS first_attempt_wait,
                 d.lease_expires_at::text AS lease,
                 e.event_id, e.payload::text AS body, w.endpoint_url, w.secret_sealed,
                 CASE WHEN w.previous_secret_expires_at > clock_timestamp()
                      THEN w.previous_secret_sealed END AS previous_secret_sealed`,
      [
        limit,
        this.leaseSeconds,
        this.config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
        MAX_IN_FLIGHT_PER_TENANT,
        busy.map(([tenantId]) => tenantId),
        busy.map(([, n]) => n),
      ],
    );
    return updatedRows<ClaimedRow>(raw);
  }

  private dispatch(row: ClaimedRow): void {
    this.leased.set(row.id, row.lease);
    this.tenantInFlight.set(row.tenant_id, (this.tenantInFlight.get(row.tenant_id) ?? 0) + 1);
    if (row.first_attempt_wait !== null) this.metrics.observeFirstAttempt(row.first_attempt_wait);
    const sending = this.deliver(row).finally(() => {
      this.inFlight.delete(sending);
      const left = (this.tenantInFlight.get(row.tenant_id) ?? 1) - 1;
      if (left > 0) this.tenantInFlight.set(row.tenant_id, left);
      else this.tenantInFlight.delete(row.tenant_id);
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
        previousSecret:
          row.previous_secret_sealed && this.secretBox.open(row.previous_secret_sealed),
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
    if (result.logDetail) {
      // kept from `last_error`, which the webhook's owner reads (see DESTINATION_UNAVAILABLE_MESSAGE)
      this.logger.warn(`webhook delivery ${row.id}: ${result.error} (${result.logDetail})`);
    }
    this.stats.attempts += 1;
    this.pending.push(this.outcome(row, result, attemptedAt));
    this.requestFlush();
  }

  private outcome(row: ClaimedRow, result: AttemptResult, attemptedAt: Date): AttemptOutcome {
    const base = {
      id: row.id,
      tenantId: row.tenant_id,
      webhookId: row.webhook_id,
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
   * Records every attempt, moves each delivery to its next state and keeps each endpoint's health
   * in one statement. A delivery is only moved while it still carries the lease this worker
   * claimed it with; if the webhook was revoked meanwhile, an unsuccessful delivery is cancelled
   * instead of retried. A success clears the endpoint's failure record; a failure counts against
   * it (fewer slots in the next claims) and, once the first failure since the last success is
   * `WEBHOOK_DISABLE_AFTER` old, pauses the webhook as `failing`. A 410 pauses it as `gone`.
   */
  private async writeResults(batch: AttemptOutcome[]): Promise<void> {
    const paused: PausedRow[] = await this.dataSource.query(
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
         RETURNING d.webhook_id, r.next_status = 'succeeded' AS ok, r.attempted_at, r.gone
       ), health AS (
         -- per webhook: did an attempt of this batch succeed, when did the first one fail, and
         -- does that pause it (read from this statement's snapshot; the UPDATE re-checks status)
         SELECT m.webhook_id, bool_or(m.ok) AS ok, count(*) FILTER (WHERE NOT m.ok)::int AS failures,
                min(m.attempted_at) FILTER (WHERE NOT m.ok) AS first_failure,
                CASE WHEN bool_or(m.gone) THEN 'gone'
                     WHEN NOT bool_or(m.ok)
                          AND COALESCE(min(w.failing_since), min(m.attempted_at))
                              <= now() - $11 * interval '1 millisecond'
                       THEN 'failing' END AS pause
           FROM moved m JOIN webhooks w ON w.id = m.webhook_id
          GROUP BY m.webhook_id
       )
       UPDATE webhooks w
          SET consecutive_failures = CASE WHEN h.ok THEN 0
                                          ELSE w.consecutive_failures + h.failures END,
              failing_since = CASE WHEN h.ok THEN NULL
                                   ELSE COALESCE(w.failing_since, h.first_failure) END,
              status = CASE WHEN w.status = 'active' AND h.pause IS NOT NULL THEN 'paused'
                            ELSE w.status END,
              status_reason = CASE WHEN w.status = 'active' AND h.pause IS NOT NULL THEN h.pause
                                   ELSE w.status_reason END,
              updated_at = CASE WHEN w.status = 'active' AND h.pause IS NOT NULL THEN now()
                                ELSE w.updated_at END
         FROM health h
        WHERE w.id = h.webhook_id
          AND (h.pause IS NOT NULL OR NOT h.ok
               OR w.consecutive_failures <> 0 OR w.failing_since IS NOT NULL)
       RETURNING w.id, w.tenant_id,
                 -- set to now() (this transaction's start) only by the pause above
                 CASE WHEN w.updated_at = now() THEN h.pause END AS status_reason`,
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
        this.disableAfterMs,
      ],
    );
    for (const row of updatedRows<PausedRow>(paused)) {
      if (row.status_reason === null) continue;
      // an operational event: the tenant's integration stopped receiving until re-activated
      this.logger.warn(
        `webhook ${row.id} of tenant ${row.tenant_id} paused: ${
          row.status_reason === 'gone'
            ? 'its receiver answered 410 Gone'
            : `its deliveries failed without a success for ${this.config.WEBHOOK_DISABLE_AFTER}`
        }`,
      );
    }
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
