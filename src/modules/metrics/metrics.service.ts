import { Injectable } from '@nestjs/common';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { PageReads } from '../../common/database/page-reads.js';
import { bigBodyTurns } from '../../common/http/request-body.js';
import { MetricsRepository } from './metrics.repository.js';
import { SharedReading } from './shared-reading.js';

/** Prometheus's text format, as every listener that serves the metrics answers it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** How old the database's figures in a scrape may be (scrapers ask every 15 s or more). */
export const DATABASE_FIGURES_MAX_AGE_MS = 5_000;

/**
 * Prometheus metrics. Delivery and backlog figures are read from the database at scrape time, so
 * every replica reports the same, whole-system numbers and no worker has to report in; one reading
 * serves every scrape for DATABASE_FIGURES_MAX_AGE_MS.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly firstAttempt: Histogram;

  constructor(repository: MetricsRepository, pageReads: PageReads) {
    collectDefaultMetrics({ register: this.registry });
    // the exact Node version tells a reader which published vulnerabilities apply
    this.registry.removeSingleMetric('nodejs_version_info');
    const figures = new SharedReading(async () => {
      const [inFlight, failing, byStatus, backlog, busiest] = await Promise.all([
        repository.attemptsInFlight(),
        repository.failingWebhooks(),
        repository.deliveriesByStatus(),
        repository.backlog(),
        repository.busiestEndpointInFlight(),
      ]);
      return { inFlight, failing, byStatus, backlog, busiest };
    }, DATABASE_FIGURES_MAX_AGE_MS);
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.firstAttempt = new Histogram({
      name: 'webhook_event_to_first_attempt_seconds',
      help: 'Time from an event to the first delivery attempt of each of its deliveries (observed when the attempt starts)',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [this.registry],
    });
    new Gauge({
      name: 'webhook_attempts_in_flight',
      help: 'Delivery attempts in flight across all workers (send chains under a live lease: one attempt at a time each)',
      registers: [this.registry],
      async collect() {
        this.set((await figures.get()).inFlight);
      },
    });
    new Gauge({
      name: 'webhook_endpoint_in_flight_max',
      help: 'The most delivery attempts in flight to any one active webhook endpoint (its limit is WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT)',
      registers: [this.registry],
      async collect() {
        this.set((await figures.get()).busiest);
      },
    });
    new Gauge({
      name: 'webhook_endpoints_failing',
      help:
        'Webhooks whose latest attempts failed without a success since: state="active" still ' +
        'attempted (with fewer slots), state="paused" paused for it (status_reason failing)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const { failing } = await figures.get();
        this.set({ state: 'active' }, failing.active);
        this.set({ state: 'paused' }, failing.paused);
      },
    });
    new Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries by status (succeeded, failed, retry, queued, sending, cancelled)',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const rows = (await figures.get()).byStatus;
        this.reset();
        for (const r of rows) this.set({ status: r.status }, r.n);
      },
    });
    const oldest = new Gauge({
      name: 'webhook_outbox_oldest_due_age_seconds',
      help: 'Age of the oldest due delivery, 0 when none is due',
      registers: [this.registry],
    });
    new Gauge({
      name: 'webhook_outbox_backlog',
      help: 'Deliveries due now and not yet attempted (queued or retry, webhook active)',
      registers: [this.registry],
      // one reading feeds both gauges; the backlog is registered after its companion, so it
      // is collected first when the registry is scraped
      async collect() {
        const row = (await figures.get()).backlog;
        this.set(Number(row?.due ?? 0));
        oldest.set(Math.max(0, row?.oldest_age_seconds ?? 0));
      },
    });
    this.registerTurnQueues(pageReads);
    this.registerPool(repository);
  }

  /** This process's database connections (a replica's own, unlike the delivery figures). */
  private registerPool(repository: MetricsRepository): void {
    new Gauge({
      name: 'db_pool_connections',
      help: 'Connections of this process\'s database pool: state="busy" (lent out) or state="idle"',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const use = repository.poolUse();
        this.set({ state: 'busy' }, use ? use.total - use.idle : 0);
        this.set({ state: 'idle' }, use?.idle ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_waiting',
      help: 'Callers of this process waiting for a pool connection (all are lent out)',
      registers: [this.registry],
      collect() {
        this.set(repository.poolUse()?.waiting ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_max_connections',
      help: "The size of this process's database pool (DATABASE_POOL_SIZE)",
      registers: [this.registry],
      collect() {
        this.set(repository.poolUse()?.max ?? 0);
      },
    });
  }

  /** This process's queues of work that takes turns: big list pages and big request bodies. */
  private registerTurnQueues(pageReads: PageReads): void {
    const queues = () => ({ big_page_reads: pageReads.turns(), big_bodies: bigBodyTurns() });
    new Gauge({
      name: 'turn_queue_waiting',
      help:
        'Requests of this process waiting for their turn: queue="big_page_reads" (list pages of ' +
        'more than 100 items, DATABASE_BIG_PAGE_READS at once), queue="big_bodies" (one at a time)',
      labelNames: ['queue'],
      registers: [this.registry],
      collect() {
        for (const [queue, turns] of Object.entries(queues())) this.set({ queue }, turns.waiting);
      },
    });
    new Counter({
      name: 'turn_queue_abandoned_total',
      help: 'Requests of this process whose client left before their turn came (never run)',
      labelNames: ['queue'],
      registers: [this.registry],
      // the queues count; each scrape reports their count as it is
      collect() {
        this.reset();
        for (const [queue, turns] of Object.entries(queues())) this.inc({ queue }, turns.left);
      },
    });
  }

  /** The whole registry in Prometheus's text format (METRICS_CONTENT_TYPE). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** Seconds from an event to the first attempt of one of its deliveries. */
  observeFirstAttempt(seconds: number): void {
    this.firstAttempt.observe(Math.max(0, seconds));
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }
}
