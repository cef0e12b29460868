import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace context of the transaction that published an event (a W3C `traceparent`), so each
 * delivery attempt's span joins that trace and links to it. Null when tracing is off or the
 * publisher ran outside any span; a nullable column without default adds no table rewrite.
 */
export class EventTraceContext1764004030000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN trace_parent text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP COLUMN trace_parent`);
  }
}
