import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoint health and fair claims (issue 19).
 *
 * - `status_reason` says why a webhook is not active: `manual` (a caller paused or revoked it),
 *   `gone` (its receiver answered 410) or `failing` (no success for `WEBHOOK_DISABLE_AFTER`); it is
 *   null exactly when the webhook is active.
 * - `failing_since` is the first failed attempt since the last success (null while healthy);
 *   `consecutive_failures` counts failed attempts since then and shrinks the endpoint's share of
 *   in-flight slots.
 * - `in_flight` is the number of the webhook's deliveries in `sending`, kept by triggers on
 *   `webhook_deliveries` whatever changes them (claims, results, revocation, a hand-written
 *   UPDATE). The claim locks the webhook row and reads it there: a locked row is read in its
 *   newest committed version, so claims on two replicas cannot both count the same free slot,
 *   which a count of delivery rows in the claim's own snapshot could.
 * - The claim works per webhook: its due rows in order, its leases by expiry.
 */
export class WebhookEndpointHealth1764000400000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks
        ADD COLUMN status_reason text CHECK (status_reason IN ('manual', 'gone', 'failing')),
        ADD COLUMN failing_since timestamptz,
        ADD COLUMN consecutive_failures int NOT NULL DEFAULT 0,
        ADD COLUMN in_flight int NOT NULL DEFAULT 0;

      UPDATE webhooks w
         SET in_flight = (SELECT count(*) FROM webhook_deliveries d
                           WHERE d.webhook_id = w.id AND d.status = 'sending');

      -- SECURITY DEFINER: the app role's tenant transactions (a revocation) move deliveries too
      CREATE FUNCTION webhook_in_flight_after_update() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        UPDATE webhooks w SET in_flight = w.in_flight + c.delta
          FROM (SELECT coalesce(n.webhook_id, o.webhook_id) AS webhook_id,
                       sum((n.status = 'sending')::int - (o.status = 'sending')::int) AS delta
                  FROM new_rows n FULL JOIN old_rows o ON o.id = n.id
                 GROUP BY 1) c
         WHERE w.id = c.webhook_id AND c.delta <> 0;
        RETURN NULL;
      END $$;
      CREATE FUNCTION webhook_in_flight_after_delete() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        UPDATE webhooks w SET in_flight = w.in_flight - c.n
          FROM (SELECT webhook_id, count(*) AS n FROM old_rows WHERE status = 'sending'
                 GROUP BY 1) c
         WHERE w.id = c.webhook_id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER webhook_deliveries_in_flight_update AFTER UPDATE ON webhook_deliveries
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_in_flight_after_update();
      CREATE TRIGGER webhook_deliveries_in_flight_delete AFTER DELETE ON webhook_deliveries
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_in_flight_after_delete();

      -- before this column a 410 paused a webhook and left its delivery waiting in retry
      UPDATE webhooks w
         SET status_reason = CASE
               WHEN w.status = 'paused' AND EXISTS (
                 SELECT 1 FROM webhook_deliveries d
                  WHERE d.webhook_id = w.id AND d.status = 'retry' AND d.last_response_status = 410)
               THEN 'gone' ELSE 'manual' END
       WHERE w.status <> 'active';

      ALTER TABLE webhooks ADD CONSTRAINT webhooks_status_reason_when_inactive
        CHECK ((status = 'active') = (status_reason IS NULL));

      CREATE INDEX webhooks_active ON webhooks (id) WHERE status = 'active';
      CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at)
        WHERE status IN ('queued', 'retry');
      CREATE INDEX webhook_deliveries_expired_by_webhook
        ON webhook_deliveries (webhook_id, lease_expires_at) WHERE status = 'sending';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX webhook_deliveries_expired_by_webhook;
      DROP TRIGGER webhook_deliveries_in_flight_delete ON webhook_deliveries;
      DROP TRIGGER webhook_deliveries_in_flight_update ON webhook_deliveries;
      DROP FUNCTION webhook_in_flight_after_delete();
      DROP FUNCTION webhook_in_flight_after_update();
      DROP INDEX webhook_deliveries_due_by_webhook;
      DROP INDEX webhooks_active;
      ALTER TABLE webhooks
        DROP CONSTRAINT webhooks_status_reason_when_inactive,
        DROP COLUMN in_flight,
        DROP COLUMN consecutive_failures,
        DROP COLUMN failing_since,
        DROP COLUMN status_reason;
    `);
  }
}
