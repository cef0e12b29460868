import { Injectable } from '@nestjs/common';
import { announcing, fragment, sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import type { WebhookStatus } from '../entities/webhook.entity.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../outbox/outbox-channel.js';

/** The `webhook_deliveries` table's writes, in the caller's tenant transaction. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * The webhook's pending deliveries that are `waiting` out a retry delay or `overdue` (held by a
   * pause) become due now, and the workers are woken.
   */
  async makeDueNow(
    tenantId: number,
    webhookId: number,
    which: 'waiting' | 'overdue',
  ): Promise<void> {
    const release = sql`WITH released AS (
         UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
          WHERE webhook_id = ${webhookId} AND tenant_id = ${tenantId} AND pending
            AND status IN ('queued', 'retry') AND next_attempt_at ${fragment(which === 'waiting' ? '>' : '<')} now()
         RETURNING 1
       )
       SELECT count(*) AS released FROM released`;
    await this.tx.query(announcing(release, () => [WEBHOOK_DELIVERIES_CHANNEL]));
  }

  /**
   * Cancels the webhook's pending deliveries, and those whose lease lapsed; an attempt in flight
   * finishes, and the worker then cancels it unless it succeeded.
   */
  async cancelPending(tenantId: number, webhookId: number): Promise<void> {
    await this.tx.query(
      sql`UPDATE webhook_deliveries
              SET status = 'cancelled', lease_expires_at = NULL, updated_at = now()
            WHERE webhook_id = ${webhookId} AND tenant_id = ${tenantId} AND pending
              AND (status IN ('queued', 'retry')
                   OR (status = 'sending' AND lease_expires_at < now()))`,
    );
  }

  /**
   * The tenant's delivery, locked (exclusive with the worker's claim, which skips locked rows),
   * with its webhook's status.
   */
  async lockForReplay(
    tenantId: number,
    deliveryId: number,
  ): Promise<{ status: string; webhook_status: WebhookStatus } | undefined> {
    const [row] = await this.tx.query(
      sql<{
        status: string;
        webhook_status: WebhookStatus;
      }>`SELECT d.status, w.status AS webhook_status
           FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.id = ${deliveryId} AND d.tenant_id = ${tenantId}
          FOR UPDATE OF d`,
    );
    return row;
  }

  /** Queues the delivery again, due now, and wakes the workers. */
  async requeue(tenantId: number, deliveryId: number): Promise<void> {
    const requeue = sql`UPDATE webhook_deliveries
            SET status = 'queued', next_attempt_at = now(), updated_at = now()
          WHERE id = ${deliveryId} AND tenant_id = ${tenantId}`;
    await this.tx.query(announcing(requeue, () => [WEBHOOK_DELIVERIES_CHANNEL]));
  }
}
