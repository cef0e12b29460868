import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';

interface BacklogRow {
  due: string;
  oldest_age_seconds: number | null;
}

/**
 * Prometheus metrics. Delivery and backlog figures are read from the database at scrape time, so
 * every replica reports the same, whole-system numbers and no worker has to report in.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly firstAttempt: Histogram;

  constructor(@InjectDataSource() private readonly db: DataSource) {
    collectDefaultMetrics({ register: this.registry });
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
    const database = this.db;
    new Gauge({
      name: 'webhook_attempts_in_flight',
      help: 'Delivery attempts in flight across all workers (send chains under a live lease: one attempt at a time each)',
      registers: [this.registry],
      async collect() {
        const [row]: Array<{ n: string }> = await database.query(
          `SELECT count(*) AS n FROM webhook_deliveries
            WHERE status = 'sending' AND holds_slot AND lease_expires_at >= now()`,
        );
        this.set(Number(row?.n ?? 0));
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
        const [row]: Array<{ active: string; paused: string }> = await database.query(
          `SELECT count(*) FILTER (WHERE status = 'active' AND failing_since IS NOT NULL) AS active,
                  count(*) FILTER (WHERE status = 'paused' AND status_reason = 'failing') AS paused
             FROM webhooks`,
        );
        this.set({ state: 'active' }, Number(row?.active ?? 0));
        this.set({ state: 'paused' }, Number(row?.paused ?? 0));
      },
    });
    new Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries by status (succeeded, failed, retry, queued, sending, cancelled)',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const rows: Array<{ status: string; n: string }> = await database.query(
          'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status',
        );
        this.reset();
        for (const r of rows) this.set({ status: r.status }, Number(r.n));
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
      // one query feeds both gauges; the backlog is registered after its companion, so it
      // is collected first when the registry is scraped
      async collect() {
        const [row]: BacklogRow[] = await database.query(`
          SELECT count(*) AS due,
                 extract(epoch FROM now() - min(d.next_attempt_at))::float8 AS oldest_age_seconds
          FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'active'
          WHERE d.status IN ('queued', 'retry') AND d.next_attempt_at <= now()`);
        this.set(Number(row?.due ?? 0));
        oldest.set(Math.max(0, row?.oldest_age_seconds ?? 0));
      },
    });
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
