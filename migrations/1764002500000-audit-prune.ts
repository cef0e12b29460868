import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AUDIT_PRUNE_SETTING } from '../src/common/database/schema-constants.js';

/**
 * Lets exactly one path delete from the append-only audit log: `audit prune` (CLI), which sets
 * `app.audit_prune_before` to its bound with `SET LOCAL` (`set_config(…, true)`) in each batch's
 * transaction. The trigger then lets a DELETE through only for a row created before that bound,
 * and only while the bound is at least a day old, so neither a forgotten setting nor a mistyped
 * bound can remove recent records (the prune's own entry among them). UPDATE and TRUNCATE, and a
 * DELETE without the setting, are refused as before. `grc_app` still has no DELETE grant.
 *
 * A BRIN index on created_at lets the batches find old rows without scanning the whole table and
 * costs next to nothing on insert (rows arrive in time order).
 */
export class AuditPrune1764002500000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        bound timestamptz;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          bound := NULLIF(current_setting('${AUDIT_PRUNE_SETTING}', true), '')::timestamptz;
          IF bound IS NOT NULL AND bound <= now() - interval '1 day' AND OLD.created_at < bound THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only';
      END $$;
      CREATE INDEX audit_log_created ON audit_log USING brin (created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX audit_log_created;
      CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only';
      END $$;
    `);
  }
}
