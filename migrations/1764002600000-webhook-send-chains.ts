import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Send chains (issue 19): a claim may hand one in-flight slot of a healthy webhook several due
 * deliveries, which the worker sends one after another. Each chain's last row `holds_slot`; the
 * others do not. `in_flight` now counts the `sending` rows that hold a slot, so it still counts
 * attempts that can be in flight at once (one per chain) while a chain's earlier rows are written
 * back as they finish. A row claimed before this migration holds a slot (the default), as it did.
 */
export class WebhookSendChains1764002600000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN holds_slot boolean NOT NULL DEFAULT true;

      CREATE OR REPLACE FUNCTION webhook_in_flight_after_update() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        UPDATE webhooks w SET in_flight = w.in_flight + c.delta
          FROM (SELECT coalesce(n.webhook_id, o.webhook_id) AS webhook_id,
                       sum((n.status = 'sending' AND n.holds_slot)::int
                           - (o.status = 'sending' AND o.holds_slot)::int) AS delta
                  FROM new_rows n FULL JOIN old_rows o ON o.id = n.id
                 GROUP BY 1) c
         WHERE w.id = c.webhook_id AND c.delta <> 0;
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION webhook_in_flight_after_delete() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        UPDATE webhooks w SET in_flight = w.in_flight - c.n
          FROM (SELECT webhook_id, count(*) AS n FROM old_rows
                 WHERE status = 'sending' AND holds_slot GROUP BY 1) c
         WHERE w.id = c.webhook_id;
        RETURN NULL;
      END $$;

      UPDATE webhooks w
         SET in_flight = (SELECT count(*) FROM webhook_deliveries d
                           WHERE d.webhook_id = w.id AND d.status = 'sending' AND d.holds_slot);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION webhook_in_flight_after_update() RETURNS trigger LANGUAGE plpgsql
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
      CREATE OR REPLACE FUNCTION webhook_in_flight_after_delete() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        UPDATE webhooks w SET in_flight = w.in_flight - c.n
          FROM (SELECT webhook_id, count(*) AS n FROM old_rows WHERE status = 'sending'
                 GROUP BY 1) c
         WHERE w.id = c.webhook_id;
        RETURN NULL;
      END $$;
      ALTER TABLE webhook_deliveries DROP COLUMN holds_slot;
      UPDATE webhooks w
         SET in_flight = (SELECT count(*) FROM webhook_deliveries d
                           WHERE d.webhook_id = w.id AND d.status = 'sending');
    `);
  }
}
