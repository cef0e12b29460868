import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `document_versions.index_json` (issue 24, the version index of `GET /documents/{id}` and the
 * pages of `GET /documents/{id}/versions`): the row's index entry (`VersionIndexEntry`) as the
 * exact JSON text `JSON.stringify` writes, kept by a BEFORE INSERT OR UPDATE trigger as
 * `documents.summary_json` is (migration 1764002900000). The index then concatenates stored texts
 * instead of formatting 1,000 timestamps per read (2.8-2.9 ms of PostgreSQL per 1,000-entry
 * index against 1.1 ms: bench/README.md, "The version index stored as JSON text").
 *
 * The expression is the one `jsonObjectText` wrote for the entry before, written out here because
 * a migration must not change when src does. Changing the entry's members or their order needs a
 * new migration that replaces the function and rewrites the column. The function runs as whoever
 * writes, so it names nothing outside pg_catalog.
 *
 * Upgrading: the column is added and every existing version rewritten in one transaction holding
 * `document_versions` exclusively (the contents, stored apart when large, are not copied), so
 * reads and writes of versions wait for it; run it in a maintenance window on a large table
 * (README, "Deployment and scaling").
 */
export class VersionIndexJson1764003000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE document_versions ADD COLUMN index_json text;

      CREATE FUNCTION document_versions_index_json() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.index_json :=
          '{"versionId":' || COALESCE((NEW.id)::text, 'null')
          || ',"number":' || COALESCE((NEW.number)::text, 'null')
          || ',"content_hash":' || COALESCE(to_json(NEW.content_hash)::text, 'null')
          || ',"created_at":' || COALESCE('"' || to_char(NEW.created_at AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || ',"source":' || COALESCE(to_json(NEW.source)::text, 'null')
          || '}';
        RETURN NEW;
      END $$;

      CREATE TRIGGER document_versions_index_json BEFORE INSERT OR UPDATE ON document_versions
        FOR EACH ROW EXECUTE FUNCTION document_versions_index_json();

      -- Existing rows: the trigger computes the text.
      UPDATE document_versions SET index_json = NULL;
      ALTER TABLE document_versions ALTER COLUMN index_json SET NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER document_versions_index_json ON document_versions;
      DROP FUNCTION document_versions_index_json();
      ALTER TABLE document_versions DROP COLUMN index_json;
    `);
  }
}
