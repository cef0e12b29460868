import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The statuses a delivery may still be sent from (`pending` is true exactly for these). */
const PENDING = `('queued', 'retry', 'sending')`;

/** The churn tables' autovacuum: a fixed share of a large table is too many dead rows to wait for. */
const CHURN_AUTOVACUUM = `autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02`;
const CHURN_AUTOVACUUM_KEYS = `autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
  autovacuum_vacuum_insert_scale_factor, autovacuum_analyze_scale_factor`;

/**
 * Delivery churn (issue 39 item 6). Each delivery is claimed (status `sending`, a lease) and then
 * written back (`succeeded`, …): two updates, and before this migration neither was HOT, because
 * every partial index named `status` in its predicate and `lease_expires_at` was a key. Each update
 * wrote an entry into each of 9 indexes, and the table and its indexes grew until vacuumed.
 *
 * An update is HOT only if no indexed column changes (keys, expressions and predicates alike) and
 * the new version fits on its page. So:
 * - `pending` (kept by a trigger: `status IN ('queued', 'retry', 'sending')`) stands for `status`
 *   in the one index the worker needs, `webhook_deliveries_pending (webhook_id, next_attempt_at)`:
 *   the claim (queued/retry -> sending) and a lease handed back change neither column, so they are
 *   HOT. A delivery leaving `pending` has to leave the index (a non-HOT update with 4 index
 *   entries); a retry moves `next_attempt_at` (non-HOT too).
 * - It replaces `_due`, `_due_by_webhook`, `_webhook`, `_leased` and `_expired_by_webhook`: the
 *   claims, the lease sweep, the in-flight and backlog metrics and the per-webhook writes all
 *   read pending rows, by webhook and due time. In-flight rows stay in it (a claim steps over at
 *   most its webhook's in-flight rows). The lease sweep (each worker, each second) now reads all
 *   pending rows, not only `sending` ones: no index can single those out and keep the claim HOT
 *   (15 ms for a backlog of 100 000 queued rows, bench/README.md).
 * - Kept: the primary key, `_tenant` and `_by_webhook` (history pages, the webhook foreign key)
 *   and `_event` (retention, the event foreign key); none of their columns ever changes.
 * - fillfactor 50: a claim takes a page's rows together (chains of up to 32 rows), and each new
 *   version must fit on its page to be HOT. At 70 about half of a test's claims found their page
 *   full (233 HOT updates of 900); at 50, 430 of 900 (450 claims, 450 results).
 *
 * Upgrading, in three migrations so that the table keeps serving: this one (one transaction, a
 * moment's exclusive lock: the column is added false without a rewrite, set on the pending rows
 * only, found by the old indexes, and its CHECK added NOT VALID); 1764005031000 validates the
 * CHECK and builds the new index CONCURRENTLY; 1764005032000 drops the old five CONCURRENTLY.
 * fillfactor applies to pages written from now on.
 */
export class DeliveryChurn1764005030000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN pending boolean NOT NULL DEFAULT false;

      CREATE FUNCTION webhook_deliveries_pending() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.pending := NEW.status IN ${PENDING};
        RETURN NEW;
      END $$;
      CREATE TRIGGER webhook_deliveries_pending BEFORE INSERT OR UPDATE OF status, pending
        ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_pending();

      UPDATE webhook_deliveries SET pending = true WHERE status IN ${PENDING};
      ALTER TABLE webhook_deliveries ALTER COLUMN pending SET DEFAULT true,
        ADD CONSTRAINT webhook_deliveries_pending_check CHECK (pending = (status IN ${PENDING}))
          NOT VALID;

      ALTER TABLE webhook_deliveries SET (fillfactor = 50, ${CHURN_AUTOVACUUM});
      ALTER TABLE webhook_delivery_attempts SET (${CHURN_AUTOVACUUM});
      ALTER TABLE events SET (${CHURN_AUTOVACUUM});
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE events RESET (${CHURN_AUTOVACUUM_KEYS});
      ALTER TABLE webhook_delivery_attempts RESET (${CHURN_AUTOVACUUM_KEYS});
      ALTER TABLE webhook_deliveries RESET (fillfactor, ${CHURN_AUTOVACUUM_KEYS});

      DROP TRIGGER webhook_deliveries_pending ON webhook_deliveries;
      DROP FUNCTION webhook_deliveries_pending();
      ALTER TABLE webhook_deliveries DROP COLUMN pending;
    `);
  }
}
