import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A decision reads and supersedes the other staged candidates of one document
 * (`tenant_id = … AND document_id = … AND status = 'staged' … ORDER BY id`). With only
 * `external_revisions_staged (document_id)` and the review queue's `(tenant_id, status, id)` to
 * choose from, the planner took the queue's index for its order whenever its statistics lagged
 * behind the table (a tenant staging candidates in bulk), and every accept then walked all of the
 * tenant's staged candidates: 540 index entries and heap fetches per scan in the accept
 * benchmark, a third of PostgreSQL's CPU. This index answers those statements exactly (equality
 * on both columns, in id order, staged rows only), so no statistics make the queue's index look
 * cheaper.
 */
export class StagedRevisionsByDocument1764005010000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX external_revisions_staged_by_document
        ON external_revisions (tenant_id, document_id, id) WHERE status = 'staged';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX external_revisions_staged_by_document;`);
  }
}
