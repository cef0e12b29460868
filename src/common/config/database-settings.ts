import { IsIn, IsOptional, Matches } from 'class-validator';

import { BoolSetting, IntSetting } from './setting-decorators.js';
import { ServiceSettings } from './service-settings.js';

export const POOL_MODES = ['session', 'transaction'] as const;
export type PoolMode = (typeof POOL_MODES)[number];

/** AppConfig's settings of database pooling and retention (issue 23), after ServiceSettings'. */
export class DatabaseSettings extends ServiceSettings {
  /**
   * `session`: each pooled connection is a session of its own (PostgreSQL itself or a session
   * pooler). `transaction`: behind a transaction pooler (PgBouncer `pool_mode = transaction`):
   * nothing is prepared and nothing relies on session state outside a transaction.
   */
  @IsIn(POOL_MODES, { message: `DATABASE_POOL_MODE must be one of: ${POOL_MODES.join(', ')}` })
  DATABASE_POOL_MODE: PoolMode = 'session';

  /** Connections this process's pool may open (LISTEN connections come on top). */
  @IntSetting({ min: 1, max: 1000 })
  DATABASE_POOL_SIZE = 20;

  /**
   * Pages of more than 100 items this process reads from PostgreSQL at once; the others wait,
   * the tenants taking turns (page-reads.ts). Bounds what big lists take of the pool and of the
   * cores.
   */
  @IntSetting({ min: 1, max: 1000 })
  DATABASE_BIG_PAGE_READS = 2;

  /**
   * Where LISTEN connects (PostgreSQL itself or a session pool). Unset: DATABASE_URL in session
   * mode; in transaction mode, no LISTEN (webhook wake-ups fall back to polling, no credential
   * cache).
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_LISTEN_URL must be a postgres:// URL' })
  DATABASE_LISTEN_URL?: string;

  /**
   * How often the platform API's event stream (`GET /events` as Server-Sent Events) sends a
   * `: keep-alive` comment, so proxies and load balancers do not close a quiet stream.
   */
  @IntSetting({ min: 10, max: 300_000 })
  PLATFORM_SSE_HEARTBEAT_MS = 15_000;

  /** Runs the retention sweeper (with WORKERS_ENABLED); off keeps every row. */
  @BoolSetting()
  RETENTION_ENABLED = true;

  /** Seconds an expired or revoked access token is kept before it is deleted. */
  @IntSetting({ min: 0 })
  RETENTION_TOKEN_GRACE_SECONDS = 86_400;

  /** Days events, their deliveries and attempts are kept (a pending delivery is never deleted). */
  @IntSetting({ min: 1 })
  RETENTION_EVENT_DAYS = 30;

  /**
   * Seconds instead of RETENTION_EVENT_DAYS when set (tests and the soak benchmark use a short
   * window); unset in production.
   */
  @IsOptional()
  @IntSetting({ min: 1 })
  RETENTION_EVENT_SECONDS?: number;

  /** Rows deleted per table per statement; small batches keep locks and WAL bursts short. */
  @IntSetting({ min: 1, max: 100_000 })
  RETENTION_BATCH_SIZE = 1_000;

  /** Batches per table per sweep: bounds one sweep's work (the next sweep goes on). */
  @IntSetting({ min: 1 })
  RETENTION_MAX_BATCHES = 100;

  /** Milliseconds between sweeps. */
  @IntSetting({ min: 100 })
  RETENTION_INTERVAL_MS = 10_000;

  /** Seconds the events' retention window in force (RETENTION_EVENT_SECONDS or the days). */
  get retentionEventSeconds(): number {
    return this.RETENTION_EVENT_SECONDS ?? this.RETENTION_EVENT_DAYS * 86_400;
  }
}
