import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '../../../common/config/app-config.js';
import { SecretBox } from '../../../common/crypto/secret-box.js';
import { CommitAnnouncer } from '../../../common/database/commit-announcer.js';
import { ListenConnection, listenUrl } from '../../../common/database/listen-connection.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../outbox/outbox-channel.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { attemptOutcome, releasedOutcome } from './attempt-outcome.js';
import { ResultRecorder } from './result-recorder.js';
import { parseDuration, parseRetrySchedule } from './retry-schedule.js';
import { groupChains } from './send-chains.js';
import { type ChainRow, runChain, type SendChainDeps } from './send-chain.js';
import { WebhookVersions } from './webhook-versions.js';
import {
  CHAIN_LENGTH,
  MAX_IN_FLIGHT,
  MAX_IN_FLIGHT_PER_TENANT,
  chainsToClaim,
  claimDelayMs,
  mayKeepSlot,
} from './worker-limits.js';
import { sendAttempt } from './send-attempt.js';
import { WebhookSender } from './webhook-sender.js';
import {
  type ClaimedRow,
  DeliveryClaimsRepository,
} from '../repository/delivery-claims.repository.js';
import { DeliveryResultsRepository } from '../repository/delivery-results.repository.js';

/** The scheduler's name for the 1 s poll that backs up LISTEN. */
export const DELIVERY_POLL = 'webhook-delivery-poll';
export const POLL_INTERVAL_MS = 1_000;
const LISTEN_RECONNECT_MS = 1_000;

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
 * another (see `claim`), which takes its webhook's next due rows itself before it runs dry
 * (`runChain`), so the slot never waits on the database between two sends.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly schedule: number[];
  private readonly leaseSeconds: number;
  /** What every chain works with (see `runChain`). */
  private readonly chainDeps: SendChainDeps;
  private lastExpirySweep = -Infinity;
  private lastEmptyClaim = -Infinity;
  private readonly versions: WebhookVersions;
  /** This process's sends in flight, by tenant (the per-tenant share). */
  private readonly tenantInFlight = new Map<number, number>();
  private sender: WebhookSender | null = null;
  private running = false;
  /**
   * Attempts made, chains claimed or extended and claims finished by this process (observability;
   * tests use them to see both replicas work, slots carry several rows, and a claim has run).
   */
  readonly stats = { attempts: 0, chains: 0, claims: 0 };

  private listener: ListenConnection | null = null;

  private pumping: Promise<void> | null = null;
  private wakeAgain = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Claimed rows whose result is not written yet, by id → lease (released on shutdown). */
  private readonly leased = new Map<string, string>();

  private readonly results: ResultRecorder;

  constructor(
    private readonly config: AppConfig,
    private readonly claims: DeliveryClaimsRepository,
    results: DeliveryResultsRepository,
    private readonly secretBox: SecretBox,
    private readonly metrics: MetricsService,
    private readonly announcer: CommitAnnouncer,
  ) {
    this.schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
    const disableAfterMs = parseDuration(config.WEBHOOK_DISABLE_AFTER);
    // A lease outlives any attempt by the margin, so only a dead worker's lease ever expires.
    this.leaseSeconds = (config.WEBHOOK_TIMEOUT_MS + config.WEBHOOK_LEASE_MARGIN_MS) / 1000;
    this.chainDeps = {
      now: () => performance.now(),
      // a chain starts a row only this long after its claim, so the row ends within its lease
      windowMs: Math.min(config.WEBHOOK_LEASE_MARGIN_MS / 2, 2_000),
      running: () => this.running,
      unchanged: (row) => this.versions.unchanged(row),
      deliver: (entry) => this.deliver(entry.row, entry.claimedAt),
      release: (rows) => this.results.record(...rows.map(releasedOutcome)),
      mayExtend: (tenantId) =>
        mayKeepSlot(this.tenantInFlight.get(tenantId) ?? 0, this.inFlight.size),
      extend: (tail) => this.extend(tail),
    };
    this.versions = new WebhookVersions((webhookId) => claims.activeWebhookVersion(webhookId));
    this.results = new ResultRecorder(results, this.logger, {
      disableAfterMs,
      disableAfter: config.WEBHOOK_DISABLE_AFTER,
      recorded: (batch) => {
        for (const outcome of batch) {
          if (this.leased.get(outcome.id) === outcome.lease) this.leased.delete(outcome.id);
        }
        // Slots were freed: look for more work.
        this.wake();
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.WORKERS_ENABLED) return;
    this.sender = new WebhookSender({
      timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      allowHttp: this.config.WEBHOOK_ALLOW_HTTP,
      allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      // never more than this process can have in flight: a bound, not a limit
      connectionsPerOrigin: MAX_IN_FLIGHT,
    });
    this.running = true;
    // this process's commits wake it at once, others' through LISTEN where it can listen (not
    // behind a transaction pooler without DATABASE_LISTEN_URL: the 1 s poll carries on)
    this.listener = new ListenConnection({
      connectionString: listenUrl(this.config),
      announcer: this.announcer,
      channel: WEBHOOK_DELIVERIES_CHANNEL,
      applicationName: 'grc-webhook-listener',
      logger: this.logger,
      reconnectMs: LISTEN_RECONNECT_MS,
      onNotification: () => this.wake(),
      // anything committed while we were not listening is picked up now
      onListening: () => this.wake(),
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
    await this.results.drain();
    await this.releaseLeases();
    await this.sender?.close();
    this.sender = null;
  }

  @Interval(DELIVERY_POLL, POLL_INTERVAL_MS)
  poll(): void {
    this.versions.forgetStale();
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
          const wanted = chainsToClaim(this.inFlight.size);
          if (wanted === 0) break;
          const delay = claimDelayMs(performance.now() - this.lastEmptyClaim);
          if (delay > 0) await sleep(delay);
          const claimedAt = performance.now();
          const chains = groupChains(await this.claim(wanted));
          this.stats.claims += 1;
          if (chains.length === 0) this.lastEmptyClaim = performance.now();
          for (const chain of chains) {
            this.versions.seen(chain[0]!.webhook_id, chain[0]!.webhook_version, claimedAt);
            this.dispatch(chain, claimedAt);
          }
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
    await this.claims.releaseExpiredLeases();
  }

  /** Claims due deliveries for up to `limit` send chains (see `DeliveryClaimsRepository.claim`). */
  private claim(limit: number): Promise<ClaimedRow[]> {
    return this.claims.claim({
      chains: limit,
      leaseSeconds: this.leaseSeconds,
      perEndpoint: this.config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      perTenant: MAX_IN_FLIGHT_PER_TENANT,
      busy: [...this.tenantInFlight].filter(([, n]) => n > 0),
      chainLength: CHAIN_LENGTH,
    });
  }

  /** One chain is one send in flight: its rows go one after another, its last row last. */
  private dispatch(chain: ClaimedRow[], claimedAt: number): void {
    const tenantId = chain[0]!.tenant_id;
    this.stats.chains += 1;
    for (const row of chain) this.leased.set(row.id, row.lease);
    this.tenantInFlight.set(tenantId, (this.tenantInFlight.get(tenantId) ?? 0) + 1);
    const rows = chain.map((row) => ({ row, claimedAt }));
    const sending = runChain(rows, this.chainDeps).finally(() => {
      this.inFlight.delete(sending);
      const left = (this.tenantInFlight.get(tenantId) ?? 1) - 1;
      if (left > 0) this.tenantInFlight.set(tenantId, left);
      else this.tenantInFlight.delete(tenantId);
      // Claiming does not wait for results to be written: the lease guards the row meanwhile.
      if (chainsToClaim(this.inFlight.size) > 0) this.wake();
    });
    this.inFlight.add(sending);
  }

  /** More due rows for the chain ending with `tail` ([] when none, or the look-up failed). */
  private async extend(tail: ClaimedRow): Promise<ChainRow[]> {
    const claimedAt = performance.now();
    try {
      const rows = await this.claims.extend(tail, CHAIN_LENGTH, this.leaseSeconds);
      for (const row of rows) this.leased.set(row.id, row.lease);
      if (rows.length > 0) {
        this.stats.chains += 1;
        this.versions.seen(tail.webhook_id, tail.webhook_version, claimedAt);
      }
      rows.sort((a, b) => Number(a.turn) - Number(b.turn));
      return rows.map((row) => ({ row, claimedAt }));
    } catch (error) {
      this.logger.warn(`extending a webhook send chain failed: ${(error as Error).message}`);
      return [];
    }
  }

  /** Sends one row and queues its result; true when the receiver took it. */
  private async deliver(row: ClaimedRow, claimedAt: number): Promise<boolean> {
    if (row.first_attempt_wait !== null) {
      const waitedInChain = (performance.now() - claimedAt) / 1000;
      this.metrics.observeFirstAttempt(row.first_attempt_wait + waitedInChain);
    }
    const attemptedAt = new Date();
    const result = await sendAttempt(this.sender!, this.secretBox, this.logger, row, attemptedAt);
    this.stats.attempts += 1;
    this.results.record(attemptOutcome(row, result, attemptedAt, this.schedule));
    return result.outcome === 'succeeded';
  }

  /** Hands back rows claimed but not recorded (a failed write), so another worker takes them now. */
  private async releaseLeases(): Promise<void> {
    if (this.leased.size === 0) return;
    const entries = [...this.leased];
    this.leased.clear();
    try {
      await this.claims.releaseLeases(entries);
    } catch (error) {
      this.logger.warn(`releasing webhook leases failed: ${(error as Error).message}`);
    }
  }
}
