import type { MigrationInterface, QueryRunner } from 'typeorm';
import { EVENTS_APPENDED_CHANNEL } from '../src/common/database/schema-constants.js';

/**
 * The `events_announce` trigger goes: its NOTIFY ran inside every transaction that appended an
 * event, and PostgreSQL commits the transactions that ran NOTIFY one at a time, cluster-wide,
 * each holding that turn through its WAL flush. The service now announces `events_appended` (and
 * the delivery workers' channel) after the commit, from a statement of its own
 * (src/common/database/commit-announcer.ts).
 *
 * During a rolling update, events that a replica of the previous release appends are no longer
 * announced to the event feed's listeners: their 1 s poll reads them.
 */
export class EventsAnnouncedAfterCommit1764005050000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER events_announce ON events;
      DROP FUNCTION events_announce();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
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
}
