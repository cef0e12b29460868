import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';

/** The backlog of due deliveries. */
export interface BacklogRow {
  due: string;
  oldest_age_seconds: number | null;
}

/** This process's connection pool: connections open and idle, callers waiting, its size. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

interface PgPoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max?: number };
}

/**
 * The scrape-time reads of the delivery figures: on the pool, outside any tenant transaction
 * (as the owner, across tenants: TenantTransactions.ownerQuery), so every replica reports the same, whole-system numbers.
 */
@Injectable()
export class MetricsRepository {
  constructor(
    private readonly tx: TenantTransactions,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** Send chains under a live lease (one attempt at a time each). */
  async attemptsInFlight(): Promise<number> {
    const [row] = await this.tx.ownerQuery(sql<{ n: string }>`SELECT count(*) AS n
      FROM webhook_deliveries
      WHERE pending AND status = 'sending' AND holds_slot AND lease_expires_at >= now()`);
    return Number(row?.n ?? 0);
  }

  /** The most attempts in flight to any one active webhook's endpoint (0 when none). */
  async busiestEndpointInFlight(): Promise<number> {
    const [row] = await this.tx.ownerQuery(
      sql<{
        n: number | null;
      }>`SELECT max(in_flight)::int AS n FROM webhooks WHERE status = 'active'`,
    );
    return row?.n ?? 0;
  }

  /** This process's pg pool (TypeORM's driver holds it as `master`); undefined before it opened. */
  poolUse(): PoolUse | undefined {
    const pool = (this.db.driver as unknown as { master?: PgPoolCounts }).master;
    if (!pool) return undefined;
    return {
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max ?? 10,
    };
  }

  /** Webhooks failing and still attempted (`active`), and paused for failing (`paused`). */
  async failingWebhooks(): Promise<{ active: number; paused: number }> {
    const [row] = await this.tx.ownerQuery(sql<{ active: string; paused: string }>`SELECT
        count(*) FILTER (WHERE status = 'active' AND failing_since IS NOT NULL) AS active,
        count(*) FILTER (WHERE status = 'paused' AND status_reason = 'failing') AS paused
      FROM webhooks`);
    return { active: Number(row?.active ?? 0), paused: Number(row?.paused ?? 0) };
  }

  /** Deliveries counted by status (only the statuses that have any). */
  async deliveriesByStatus(): Promise<Array<{ status: string; n: number }>> {
    const rows = await this.tx.ownerQuery(
      sql<{ status: string; n: string }>`SELECT status, count(*) AS n FROM webhook_deliveries
        GROUP BY status`,
    );
    return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
  }

  /** Deliveries due now and not yet attempted (webhook active), and the oldest one's age. */
  async backlog(): Promise<BacklogRow | undefined> {
    const [row] = await this.tx.ownerQuery(sql<BacklogRow>`SELECT count(*) AS due,
        extract(epoch FROM now() - min(d.next_attempt_at))::float8 AS oldest_age_seconds
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'active'
      WHERE d.pending AND d.status IN ('queued', 'retry') AND d.next_attempt_at <= now()`);
    return row;
  }
}
