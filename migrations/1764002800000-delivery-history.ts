import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery history an integrator can search (issue 20 item 4).
 *
 * `response_body_excerpt`: the first 1 KiB of what the receiver answered, as text (null when no
 * response arrived). Old attempts have none.
 *
 * `webhook_deliveries_by_webhook`: `GET /webhook-deliveries?webhookId=` walks one webhook's
 * deliveries newest first by this index instead of filtering the tenant's whole history
 * (`webhook_deliveries_webhook` covers pending rows only).
 */
export class DeliveryHistory1764002800000 implements MigrationInterface {
  /** CONCURRENTLY: the largest hot table keeps taking writes while the index builds. */
  readonly transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_delivery_attempts ADD COLUMN IF NOT EXISTS response_body_excerpt text`,
    );
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_by_webhook
         ON webhook_deliveries (webhook_id, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_by_webhook`);
    await q.query(`ALTER TABLE webhook_delivery_attempts DROP COLUMN response_body_excerpt`);
  }
}
