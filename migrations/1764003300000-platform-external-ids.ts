import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose rows the host platform names by its own ids. */
const TABLES = ['projects', 'documents', 'project_files'] as const;

/**
 * `external_id` on projects, documents and file metadata: the host platform's own id of the row,
 * by which its content upserts (`PUT …/{externalId}`, the NDJSON import) find the row again. Null
 * for rows made otherwise (the CLI, older data). Unique per tenant and kind, through a partial
 * index the upserts name in `ON CONFLICT`; the CHECK repeats the API's rule (1 to 200 characters
 * of `A-Z a-z 0-9 . _ : -`) so no other write path can store an id the API could not address.
 *
 * `document_versions.source` already allows `platform`: nothing to change there.
 *
 * Upgrading: adding a nullable column without a default rewrites nothing; each index is built
 * holding its table against writes (seconds per million rows).
 */
export class PlatformExternalIds1764003300000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await q.query(`
        ALTER TABLE ${table} ADD COLUMN external_id text
          CONSTRAINT ${table}_external_id_check CHECK (external_id ~ '^[A-Za-z0-9._:-]{1,200}$');
        CREATE UNIQUE INDEX ${table}_external_id ON ${table} (tenant_id, external_id)
          WHERE external_id IS NOT NULL;
      `);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await q.query(`
        DROP INDEX ${table}_external_id;
        ALTER TABLE ${table} DROP COLUMN external_id;
      `);
    }
  }
}
