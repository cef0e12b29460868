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
import { WEBHOOK_DELIVERIES_CHANNEL } from './outbox/outbox-channel.js';
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
/**
 * Due deliveries one in-flight slot of a healthy webhook may carry in one claim, sent one after
 * another: a slot then costs one claim and one result write per chain instead of per delivery.
 */
export const CHAIN_LENGTH = 16;
/** How old a chain's reading of its webhook's status and version may be. */
const VERSION_RECHECK_MS = 100;
/** Results written per statement. */
const RESULT_BATCH = 500;
const POLL_INTERVAL_MS = 1_000;
const LISTEN_RECONNECT_MS = 1_000;

interface ClaimedRow {
  id: string;
  tenant_id: number;
  webhook_id: number;
  /** The chain this row belongs to, within its webhook's rows of this claim. */
  chain: number;
  /** Its place in the webhook's rows of this claim (a chain's rows are sent in this order). */
  turn: string;
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
  /** The webhook's `updated_at` when claimed: a status, URL or secret change moves it. */
  webhook_version: string;
}

interface AttemptOutcome {
  id: string;
  tenantId: number;
  webhookId: number;
  lease: string;
  /** `released`: a chain's row handed back unsent (no attempt made). */
  nextStatus: 'succeeded' | 'retry' | 'failed' | 'released';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  /** Delay before the next attempt; null when there is none. */
  delayMs: number | null;
  /** 410 Gone: pause the webhook and hold the delivery. */
  gone: boolean;
  /** The first 1 KiB of the response body (see `WebhookSender`); null without a response. */
  responseBodyExcerpt: string | null;
}

interface PausedRow {
  id: number;
  tenant_id: number;
  status_reason: 'gone' | 'failing';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A claim's rows as chains, each in sending order. */
function groupChains(rows: ClaimedRow[]): ClaimedRow[][] {
  const chains = new Map<string, ClaimedRow[]>();
  for (const row of rows) {
    const key = `${row.webhook_id}:${row.chain}`;
    const chain = chains.get(key);
    if (chain) chain.push(row);
    else chains.set(key, [row]);
  }
  const byTurn = (a: ClaimedRow, b: ClaimedRow) => Number(a.turn) - Number(b.turn);
  return [...chains.values()].map((chain) => chain.sort(byTurn));
}

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
 * webhooks; and one tenant holds at most half of a process's sends. So that a healthy webhook is
 * still drained fast through its few slots, one slot may carry a chain of due rows sent one after
 * another (see `claim`).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly schedule: number[];
  private readonly leaseSeconds: number;
  private readonly disableAfterMs: number;
  /** A chain starts a row only this long after its claim, so the row ends within its lease. */
  private readonly chainWindowMs: number;
  private lastExpirySweep = -Infinity;
  /** Each webhook's `updated_at` (null: not active), as last read by a chain. */
  private readonly versions = new Map<number, { at: number; version: Promise<string | null> }>();
  /** This process's sends in flight, by tenant (the per-tenant share). */
  private readonly tenantInFlight = new Map<number, number>();
  private sender: WebhookSender | null = null;
  private running = false;
  /**
   * Attempts made and chains claimed by this process (observability; tests use them to see both
   * replicas work and slots carry several rows).
   */
  readonly stats = { attempts: 0, chains: 0 };

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
    this.chainWindowMs = Math.min(config.WEBHOOK_LEASE_MARGIN_MS / 2, 2_000);
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
    const stale = performance.now() - 10 * VERSION_RECHECK_MS;
    for (const [id, seen] of this.versions) if (seen.at < stale) this.versions.delete(id);
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
        await this.releaseExpiredLeases();
        while (this.running) {
          const wanted = MAX_IN_FLIGHT - this.inFlight.size;
          // Under load, claim in sizeable batches rather than one row per finished send.
          if (wanted < MIN_CLAIM && this.inFlight.size > 0) break;
          const claimedAt = performance.now();
          const chains = groupChains(await this.claim(wanted));
          for (const chain of chains) this.dispatch(chain, claimedAt);
          if (chains.length < wanted) break;
        }
      } while (this.wakeAgain && this.running);
    } catch (error) {
      this.logger.error(`claiming webhook deliveries failed: ${(error as Error).message}`);
    }
  }

  /**
   * Hands back the rows of a worker that died holding them (its lease ran out), at most once per
   * poll interval: they are due again at their old due time, so the next claim takes them first.
   */
  private async releaseExpiredLeases(): Promise<void> {
    const now = performance.now();
    if (now - this.lastExpirySweep < POLL_INTERVAL_MS) return;
    this.lastExpirySweep = now;
    await this.dataSource.query(
      `UPDATE webhook_deliveries d
          SET status = CASE WHEN w.status = 'revoked' THEN 'cancelled'
                            WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END,
              lease_expires_at = NULL, holds_slot = true, updated_at = now()
         FROM webhooks w
        WHERE d.status = 'sending' AND d.lease_expires_at < now() AND w.id = d.webhook_id`,
    );
  }

  /**
   * Claims due deliveries for up to `limit` send chains in one statement.
   *
   * It locks the active webhooks that have due rows, skipping those another worker is claiming
   * for or recording results of right now. A locked row is read in its newest committed version,
   * so `in_flight` (kept by triggers, see the migrations webhook-endpoint-health and
   * webhook-send-chains) already counts every chain another replica committed: the free slots are
   * the endpoint's limit, halved per failure since its last success (down to one), minus that.
   * A webhook's oldest due rows fill its free slots; a healthy webhook's slot may carry up to
   * `CHAIN_LENGTH` rows (a failing one's only one), dealt round-robin so each chain starts with
   * one of the oldest. The chains are ranked round-robin, first across a tenant's webhooks, then
   * across tenants, kept within each tenant's share of this process, and the first `limit` are
   * claimed. Each chain's last row holds its slot until its result is written. Rows are locked
   * `FOR UPDATE SKIP LOCKED` as before (a replay holding one is skipped).
   */
  private async claim(limit: number): Promise<ClaimedRow[]> {
    const busy = [...this.tenantInFlight].filter(([, n]) => n > 0);
    const raw: unknown = await this.dataSource.query(
      `WITH hooks AS (
         SELECT w.id, w.tenant_id,
                GREATEST(1, $3::int >> LEAST(w.consecutive_failures, 30)) - w.in_flight AS free,
                CASE WHEN w.consecutive_failures = 0 THEN $7::int ELSE 1 END AS per_slot
           FROM webhooks w
          WHERE w.status = 'active'
            AND EXISTS (SELECT 1 FROM webhook_deliveries d
                         WHERE d.webhook_id = w.id AND d.status IN ('queued', 'retry')
                           AND d.next_attempt_at <= now())
          FOR NO KEY UPDATE OF w SKIP LOCKED
       ), due AS (
         SELECT d.id, h.id AS webhook_id, h.tenant_id, d.next_attempt_at AS due_at, h.free
           FROM hooks h
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.webhook_id = h.id AND d.status IN ('queued', 'retry')
                AND d.next_attempt_at <= now()
              ORDER BY d.next_attempt_at
              LIMIT GREATEST(LEAST(h.free, $1), 0) * h.per_slot
              FOR UPDATE OF d SKIP LOCKED) d
       ), numbered AS (
         SELECT d.id, d.webhook_id, d.tenant_id, d.due_at,
                row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.due_at, d.id) AS turn,
                count(*) OVER (PARTITION BY d.webhook_id) AS n,
                LEAST(d.free, count(*) OVER (PARTITION BY d.webhook_id)) AS chains
           FROM due d
       ), chained AS (
         SELECT n.id, n.webhook_id, n.tenant_id, n.due_at, n.turn,
                ((n.turn - 1) % n.chains)::int AS chain,
                n.turn > n.n - n.chains AS holds_slot
           FROM numbered n
       ), by_tenant AS (
         -- a chain's first row stands for it
         SELECT c.webhook_id, c.chain, c.due_at,
                row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.chain, c.due_at, c.id)
                  AS turn,
                $4::int - COALESCE(t.in_flight, 0) AS share
           FROM chained c
           LEFT JOIN unnest($5::int[], $6::int[]) AS t(tenant_id, in_flight)
             ON t.tenant_id = c.tenant_id
          WHERE c.turn = c.chain + 1
       ), picked AS (
         SELECT webhook_id, chain FROM by_tenant WHERE turn <= share
          ORDER BY turn, due_at, webhook_id, chain LIMIT $1
       )
       UPDATE webhook_deliveries d
          SET status = 'sending',
              holds_slot = c.holds_slot,
              lease_expires_at = clock_timestamp() + make_interval(secs => $2),
              updated_at = now()
         FROM chained c, picked p, webhooks w, events e
        WHERE d.id = c.id AND p.webhook_id = c.webhook_id AND p.chain = c.chain
          AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.tenant_id, d.webhook_id, c.chain, c.turn::text AS turn, d.attempts,
                 CASE WHEN d.attempts = 0
                      THEN extract(epoch FROM clock_timestamp() - e.created_at)::float8
                 END AS first_attempt_wait,
                 d.lease_expires_at::text AS lease,
                 e.event_id, e.payload::text AS body, w.endpoint_url, w.secret_sealed,
                 CASE WHEN w.previous_secret_expires_at > clock_timestamp()
                      THEN w.previous_secret_sealed END AS previous_secret_sealed,
                 w.updated_at::text AS webhook_version`,
      [
        limit,
        this.leaseSeconds,
        this.config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
        MAX_IN_FLIGHT_PER_TENANT,
        busy.map(([tenantId]) => tenantId),
        busy.map(([, n]) => n),
        CHAIN_LENGTH,
      ],
    );
    return updatedRows<ClaimedRow>(raw);
  }

  /** One chain is one send in flight: its rows go one after another, its last row last. */
  private dispatch(chain: ClaimedRow[], claimedAt: number): void {
    const tenantId = chain[0]!.tenant_id;
    this.stats.chains += 1;
    for (const row of chain) this.leased.set(row.id, row.lease);
    this.tenantInFlight.set(tenantId, (this.tenantInFlight.get(tenantId) ?? 0) + 1);
    const sending = this.runChain(chain, claimedAt).finally(() => {
      this.inFlight.delete(sending);
      const left = (this.tenantInFlight.get(tenantId) ?? 1) - 1;
      if (left > 0) this.tenantInFlight.set(tenantId, left);
      else this.tenantInFlight.delete(tenantId);
      // Claiming does not wait for results to be written: the lease guards the row meanwhile.
      if (MAX_IN_FLIGHT - this.inFlight.size >= MIN_CLAIM) this.wake();
    });
    this.inFlight.add(sending);
  }

  /**
   * Sends a chain's rows in order. After an unsuccessful attempt, on shutdown, once its webhook
   * was paused, revoked, edited or its secret rotated, or once a row could no longer finish within
   * its lease, the rest go back unsent (they are due again at once).
   */
  private async runChain(chain: ClaimedRow[], claimedAt: number): Promise<void> {
    for (let i = 0; i < chain.length; i++) {
      const row = chain[i]!;
      const late = () => performance.now() - claimedAt > this.chainWindowMs;
      // lateness again after the look-up, which may have waited for a connection
      if (i > 0 && (late() || !this.running || !(await this.unchanged(row)) || late())) {
        this.release(chain.slice(i));
        return;
      }
      const ok = await this.deliver(row, claimedAt);
      if (!ok && i + 1 < chain.length) {
        this.release(chain.slice(i + 1));
        return;
      }
    }
  }

  /**
   * Whether the row's webhook is still active with the URL and secrets it was claimed with, as
   * read at most `VERSION_RECHECK_MS` ago (one look-up per webhook, shared by its chains): a
   * pause, revocation, PATCH or rotation stops the rest of a chain within that time.
   */
  private async unchanged(row: ClaimedRow): Promise<boolean> {
    let seen = this.versions.get(row.webhook_id);
    if (!seen || performance.now() - seen.at > VERSION_RECHECK_MS) {
      const version = this.dataSource
        .query<Array<{ v: string }>>(
          `SELECT updated_at::text AS v FROM webhooks WHERE id = $1 AND status = 'active'`,
          [row.webhook_id],
        )
        .then(([found]) => found?.v ?? null)
        // unknown is treated as changed: the rest goes back and is claimed again
        .catch(() => null);
      seen = { at: performance.now(), version };
      this.versions.set(row.webhook_id, seen);
    }
    return (await seen.version) === row.webhook_version;
  }

  private release(rows: ClaimedRow[]): void {
    for (const row of rows) {
      this.pending.push({
        id: row.id,
        tenantId: row.tenant_id,
        webhookId: row.webhook_id,
        lease: row.lease,
        nextStatus: 'released',
        responseStatus: null,
        error: null,
        durationMs: 0,
        attemptedAt: new Date().toISOString(),
        delayMs: null,
        gone: false,
        responseBodyExcerpt: null,
      });
    }
    this.requestFlush();
  }

  /** Sends one row and queues its result; true when the receiver took it. */
  private async deliver(row: ClaimedRow, claimedAt: number): Promise<boolean> {
    if (row.first_attempt_wait !== null) {
      const waitedInChain = (performance.now() - claimedAt) / 1000;
      this.metrics.observeFirstAttempt(row.first_attempt_wait + waitedInChain);
    }
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
    return result.outcome === 'succeeded';
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
      responseBodyExcerpt: result.responseBodyExcerpt ?? null,
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
   * in one statement. A chain's row handed back unsent (`released`) is due again, with no attempt
   * recorded and no effect on health. A delivery is only moved while it still carries the lease this worker
   * claimed it with; if the webhook was revoked meanwhile, an unsuccessful delivery is cancelled
   * instead of retried. A success clears the endpoint's failure record; a failure counts against
   * it (fewer slots in the next claims) and, once the first failure since the last success is
   * `WEBHOOK_DISABLE_AFTER` old, pauses the webhook as `failing`. A 410 pauses it as `gone`.
   */
  private async writeResults(batch: AttemptOutcome[]): Promise<void> {
    const paused: PausedRow[] = await this.dataSource.query(
      `WITH r AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::text[], $5::int[],
                              $6::text[], $7::int[], $8::timestamptz[], $9::bigint[], $10::bool[],
                              $12::text[])
           AS r(id, tenant_id, lease, next_status, response_status, error, duration_ms,
                attempted_at, delay_ms, gone, response_body_excerpt)
       ), attempts AS (
         INSERT INTO webhook_delivery_attempts
                (tenant_id, delivery_id, attempted_at, response_status, error, duration_ms,
                 response_body_excerpt)
         SELECT tenant_id, id, attempted_at, response_status, error, duration_ms,
                response_body_excerpt FROM r
          WHERE next_status <> 'released'
       ), moved AS (
         UPDATE webhook_deliveries d
            SET status = CASE WHEN r.next_status <> 'succeeded' AND w.status = 'revoked'
                                THEN 'cancelled'
                              WHEN r.next_status = 'released'
                                THEN CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END
                              ELSE r.next_status END,
                attempts = d.attempts + (r.next_status <> 'released')::int,
                last_attempt_at = CASE WHEN r.next_status = 'released' THEN d.last_attempt_at
                                       ELSE r.attempted_at END,
                last_response_status = CASE WHEN r.next_status = 'released'
                                            THEN d.last_response_status
                                            ELSE r.response_status END,
                last_error = CASE WHEN r.next_status = 'released' THEN d.last_error
                                  ELSE r.error END,
                next_attempt_at = CASE WHEN r.delay_ms IS NULL THEN d.next_attempt_at
                                       ELSE now() + r.delay_ms * interval '1 millisecond' END,
                lease_expires_at = NULL,
                holds_slot = true,
                updated_at = now()
           FROM r, webhooks w
          WHERE d.id = r.id AND d.status = 'sending' AND d.lease_expires_at = r.lease
            AND w.id = d.webhook_id
         RETURNING d.webhook_id, r.next_status = 'succeeded' AS ok, r.attempted_at, r.gone,
                   r.next_status = 'released' AS released
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
          WHERE NOT m.released
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
        batch.map((o) => o.responseBodyExcerpt),
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
