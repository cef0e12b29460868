import { Injectable } from '@nestjs/common';
import { fragment, sql, type Statement } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import type { DeliveryStatus } from '../entities/webhook-delivery.entity.js';

/** A delivery in one of these states may still be sent: it is never deleted. */
export const PENDING_STATUSES: readonly DeliveryStatus[] = ['queued', 'sending', 'retry'];

const PENDING = fragment(`(${PENDING_STATUSES.map((s) => `'${s}'`).join(', ')})`);

export interface RetainedDelivery {
  id: string;
  event_id: string;
  status: string;
}

/**
 * The statements of delivery retention, run as the owner role (across tenants) in the caller's
 * `runAsSystem` transaction. Deletions answer how many rows they removed.
 */
@Injectable()
export class DeliveryRetentionRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * Locks (skipping those locked) up to `batch` events older than `olderThanSeconds`, oldest
   * first, none of whose deliveries is pending as read now.
   */
  async lockPrunableEvents(olderThanSeconds: number, batch: number): Promise<string[]> {
    const rows = await this.rows(
      sql<{ id: string }>`SELECT e.id FROM events e
          WHERE e.created_at < now() - make_interval(secs => ${olderThanSeconds})
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                             WHERE d.event_id = e.id AND d.status IN ${PENDING})
          ORDER BY e.created_at
          LIMIT ${batch}
          FOR UPDATE SKIP LOCKED`,
    );
    return rows.map((r) => r.id);
  }

  /** The deliveries of these events, locked: their status is the latest committed one. */
  async lockDeliveriesOf(eventIds: readonly string[]): Promise<RetainedDelivery[]> {
    return this.rows(
      sql<RetainedDelivery>`SELECT id, event_id, status FROM webhook_deliveries
          WHERE event_id = ANY(${eventIds}::bigint[]) ORDER BY id FOR UPDATE`,
    );
  }

  async deleteAttemptsOf(deliveryIds: readonly string[]): Promise<number> {
    return this.deleted(
      sql`DELETE FROM webhook_delivery_attempts WHERE delivery_id = ANY(${deliveryIds}::bigint[])`,
    );
  }

  async deleteDeliveries(deliveryIds: readonly string[]): Promise<number> {
    return this.deleted(
      sql`DELETE FROM webhook_deliveries WHERE id = ANY(${deliveryIds}::bigint[])`,
    );
  }

  async deleteEvents(eventIds: readonly string[]): Promise<number> {
    return this.deleted(sql`DELETE FROM events WHERE id = ANY(${eventIds}::bigint[])`);
  }

  /** How many rows `deletion` (a DELETE without RETURNING) removed. */
  private async deleted(deletion: Statement): Promise<number> {
    const [row] = await this.tx.query(
      sql<{ n: number }>`WITH d AS (${deletion} RETURNING 1) SELECT count(*)::int AS n FROM d`,
    );
    return row!.n;
  }

  private rows<R>(statement: Statement<R>): Promise<R[]> {
    return this.tx.query(statement);
  }
}
