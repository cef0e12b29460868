import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The platform's review queue (`GET /platform/v1/revisions`): candidates of one status, oldest
 * (lowest id) first, across every tenant or for one tenant, walked by keyset on id. Without these
 * indexes each page would scan or sort every candidate ever staged; with them a page reads its
 * `limit + 1` entries in order, whether the status is `staged` (the queue proper) or a decided one.
 * The existing `(document_id, id)` index serves the queue of one document.
 *
 * Upgrading: `CREATE INDEX` holds off writes to `external_revisions` while it builds (staging and
 * decisions wait); on a large table run it in a maintenance window (README, "Deployment and
 * scaling").
 */
export class ReviewQueue1764003400000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX external_revisions_queue ON external_revisions (status, id);
      CREATE INDEX external_revisions_tenant_queue ON external_revisions (tenant_id, status, id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX external_revisions_tenant_queue;
      DROP INDEX external_revisions_queue;
    `);
  }
}
