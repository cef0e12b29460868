import type { MigrationInterface, QueryRunner } from 'typeorm';
import { EVENTS_APPENDED_CHANNEL } from '../src/common/database/schema-constants.js';

/**
 * Events in an order a reader can resume from (the platform API's event feed).
 *
 * `events.id` comes from a sequence: a transaction that took a lower id may commit after one that
 * took a higher id, so a reader that had resumed after the higher id would never see the lower
 * one. Each event now records the id of the transaction that wrote it (`xid`: `txid_current()`, the 64-bit id with its epoch, which never wraps,
 * as a bigint; `pg_current_xact_id()` is the same number as `xid8`).
 * A reader takes only events whose transaction is older than the oldest transaction still running
 * (`pg_snapshot_xmin`): every transaction below that horizon has ended, so no event can appear
 * later at a position before any event it returned. The feed's order is `(xid, id)`.
 *
 * Existing rows get 0 (a constant default: no table rewrite), i.e. they sort first, by id, which
 * is the best order that can be known for them; new rows get their writer's id from the default.
 *
 * A statement-level trigger announces every insert on `EVENTS_APPENDED_CHANNEL` (delivered on
 * commit, one notification per transaction as identical ones fold), whichever code inserted it,
 * so the feed's listeners wake within milliseconds of the commit.
 */
export class EventCommitOrder1764003500000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE events ADD COLUMN xid bigint NOT NULL DEFAULT 0;
      ALTER TABLE events ALTER COLUMN xid SET DEFAULT txid_current();
      CREATE INDEX events_feed ON events (xid, id);
      CREATE INDEX events_tenant_feed ON events (tenant_id, xid, id);

      CREATE FUNCTION events_announce() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        PERFORM pg_notify('${EVENTS_APPENDED_CHANNEL}', '');
        RETURN NULL;
      END $$;
      CREATE TRIGGER events_announce AFTER INSERT ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_announce();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER events_announce ON events;
      DROP FUNCTION events_announce();
      DROP INDEX events_tenant_feed;
      DROP INDEX events_feed;
      ALTER TABLE events DROP COLUMN xid;
    `);
  }
}
