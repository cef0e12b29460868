import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 39 item 6, second step of 1764005030000-delivery-churn: the pending-rows CHECK validated
 * and the worker's index built, both without blocking the table's reads and writes (VALIDATE
 * takes a share-update-exclusive lock; CONCURRENTLY builds beside the writes), then statistics
 * for `pending` so that the planner estimates it before autovacuum's first analyze.
 */
export class DeliveryPendingIndex1764005031000 implements MigrationInterface {
  readonly transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_pending_check`,
    );
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_pending
         ON webhook_deliveries (webhook_id, next_attempt_at) WHERE pending`,
    );
    await q.query(`ANALYZE webhook_deliveries`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_pending`);
  }
}
