import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Counter } from 'prom-client';
import { AppConfig } from '../../common/config/app-config.js';
import { TokenRetention } from '../auth/token-retention.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { DeliveryRetention } from '../webhooks/delivery-retention.js';

export type RetentionTable =
  'access_tokens' | 'events' | 'webhook_deliveries' | 'webhook_delivery_attempts';

/**
 * Keeps the tables that grow with traffic bounded (RETENTION_* settings): access tokens expired
 * or revoked for RETENTION_TOKEN_GRACE_SECONDS; events older than RETENTION_EVENT_DAYS with their
 * deliveries and attempts, never one whose delivery is still pending. The audit log is never
 * touched (append-only by trigger). Each rule deletes in batches of RETENTION_BATCH_SIZE rows, one
 * short transaction each, skipping rows another replica's sweep holds, and at most
 * RETENTION_MAX_BATCHES per sweep, so a sweep never holds locks or a connection for long.
 *
 * Its period is a setting, so it is a timer started at bootstrap rather than a declared
 * @Interval (whose period is fixed at compile time); like the lock sweeper it runs only with
 * WORKERS_ENABLED, and a sweep never overlaps the next one.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionSweeper.name);
  private readonly deleted: Counter<'table'>;
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly tokens: TokenRetention,
    private readonly deliveries: DeliveryRetention,
    metrics: MetricsService,
  ) {
    this.deleted = new Counter({
      name: 'retention_rows_deleted_total',
      help: 'Rows deleted by the retention sweeper, by table',
      labelNames: ['table'],
      registers: [metrics.registry],
    });
  }

  onApplicationBootstrap(): void {
    if (!this.config.WORKERS_ENABLED || !this.config.RETENTION_ENABLED) return;
    this.timer = setInterval(() => void this.tick(), this.config.RETENTION_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  /** One sweep unless one is running; failures are logged, the next tick tries again. */
  async tick(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = this.sweep()
      .then((removed) => {
        const total = Object.values(removed).reduce((a, b) => a + b, 0);
        if (total > 0) this.logger.log({ removed }, 'retention sweep deleted rows');
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'retention sweep failed'))
      .finally(() => {
        this.sweeping = null;
      });
    await this.sweeping;
  }

  /** Every rule, each until a batch comes back short or the batch limit is reached. */
  async sweep(): Promise<Record<RetentionTable, number>> {
    const { RETENTION_BATCH_SIZE: batch, RETENTION_MAX_BATCHES: maxBatches } = this.config;
    const removed: Record<RetentionTable, number> = {
      access_tokens: 0,
      events: 0,
      webhook_deliveries: 0,
      webhook_delivery_attempts: 0,
    };
    const count = (table: RetentionTable, n: number) => {
      removed[table] += n;
      if (n > 0) this.deleted.inc({ table }, n);
    };
    for (let i = 0; i < maxBatches; i++) {
      const n = await this.tokens.pruneBatch(this.config.RETENTION_TOKEN_GRACE_SECONDS, batch);
      count('access_tokens', n);
      if (n < batch) break;
    }
    for (let i = 0; i < maxBatches; i++) {
      const n = await this.deliveries.pruneBatch(this.config.retentionEventSeconds, batch);
      count('events', n.events);
      count('webhook_deliveries', n.deliveries);
      count('webhook_delivery_attempts', n.attempts);
      if (n.events < batch) break;
    }
    return removed;
  }
}
