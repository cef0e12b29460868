import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `documents.summary_json` (issue 24, the 1,000-row page of `GET /projects/{id}/documents`): the
 * row's list item (`DocumentSummary`) as the exact JSON text `JSON.stringify` writes, kept by a
 * BEFORE INSERT OR UPDATE trigger so that every write path (TypeORM, raw SQL, bulk seeds) keeps it
 * current. The page then concatenates stored texts instead of formatting 2,000 timestamps and
 * escaping 1,000 titles per request (about half of PostgreSQL's time per page).
 *
 * The expression is the one `jsonObjectText` wrote for the page before (sql-json.ts), written out
 * here because a migration must not change when src does. Changing the item's members or their
 * order needs a new migration that replaces the function and rewrites the column. The function
 * runs as whoever writes (the owner role too), so it names nothing outside pg_catalog.
 *
 * Upgrading: the column is added and every existing row rewritten in one transaction holding
 * `documents` exclusively, so reads and writes of documents wait for it (seconds per million
 * rows); run it in a maintenance window on a large table (README, "Deployment and scaling").
 */
export class DocumentSummaryJson1764002900000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE documents ADD COLUMN summary_json text;

      CREATE FUNCTION documents_summary_json() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.summary_json :=
          '{"documentId":' || COALESCE((NEW.id)::text, 'null')
          || ',"projectId":' || COALESCE((NEW.project_id)::text, 'null')
          || ',"title":' || COALESCE(to_json(NEW.title)::text, 'null')
          || ',"status":' || COALESCE(to_json(NEW.status)::text, 'null')
          || ',"current_version_id":' || COALESCE((NEW.current_version_id)::text, 'null')
          || ',"created_at":' || COALESCE('"' || to_char(NEW.created_at AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || ',"updated_at":' || COALESCE('"' || to_char(NEW.updated_at AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || '}';
        RETURN NEW;
      END $$;

      CREATE TRIGGER documents_summary_json BEFORE INSERT OR UPDATE ON documents
        FOR EACH ROW EXECUTE FUNCTION documents_summary_json();

      -- Existing rows: the trigger computes the text.
      UPDATE documents SET summary_json = NULL;
      ALTER TABLE documents ALTER COLUMN summary_json SET NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER documents_summary_json ON documents;
      DROP FUNCTION documents_summary_json();
      ALTER TABLE documents DROP COLUMN summary_json;
    `);
  }
}
