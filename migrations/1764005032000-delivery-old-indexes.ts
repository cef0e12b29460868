import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 39 item 6, last step of 1764005030000-delivery-churn: the five indexes
 * `webhook_deliveries_pending` replaces go, one at a time and CONCURRENTLY (no lock on the table's
 * reads and writes). With them go the index entries that kept a claim from being a HOT update.
 *
 * The previous release's statements name `status`, not `pending`, and the planner cannot use the
 * new index for them: its replicas still answer while the rollout proceeds, but their delivery
 * workers' claims and once-a-second lease sweep read `webhook_deliveries` without an index until
 * they are replaced (docs/operators/kubernetes.md, "Migrate, then roll out").
 */
export class DeliveryOldIndexes1764005032000 implements MigrationInterface {
  readonly transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const index of [
      'webhook_deliveries_due',
      'webhook_deliveries_due_by_webhook',
      'webhook_deliveries_webhook',
      'webhook_deliveries_leased',
      'webhook_deliveries_expired_by_webhook',
    ]) {
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_due
      ON webhook_deliveries (next_attempt_at) WHERE status IN ('queued', 'retry')`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_leased
      ON webhook_deliveries (lease_expires_at) WHERE status = 'sending'`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_webhook
      ON webhook_deliveries (webhook_id) WHERE status IN ('queued', 'retry', 'sending')`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_due_by_webhook
      ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status IN ('queued', 'retry')`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_expired_by_webhook
      ON webhook_deliveries (webhook_id, lease_expires_at) WHERE status = 'sending'`);
  }
}
