import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `projects.summary_json` (issue 24, the pages of `GET /projects`): the row's list item
 * (`ProjectView`) as the exact JSON text `JSON.stringify` writes, kept by a BEFORE INSERT OR
 * UPDATE trigger as `documents.summary_json` is (migration 1764002900000). A page then
 * concatenates stored texts instead of formatting two timestamps and escaping three texts per
 * project per request (bench/README.md, "The projects page from stored texts").
 *
 * The expression is the one `jsonObjectText` wrote for the item before, written out here because
 * a migration must not change when src does. Changing the item's members or their order needs a
 * new migration that replaces the function and rewrites the column. The function runs as whoever
 * writes, so it names nothing outside pg_catalog.
 *
 * Upgrading: the column is added and every existing project rewritten in one transaction holding
 * `projects` exclusively, so reads and writes of projects wait for it; run it in a maintenance
 * window on a large table (README, "Deployment and scaling").
 */
export class ProjectSummaryJson1764003100000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE projects ADD COLUMN summary_json text;

      CREATE FUNCTION projects_summary_json() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.summary_json :=
          '{"projectId":' || COALESCE((NEW.id)::text, 'null')
          || ',"name":' || COALESCE(to_json(NEW.name)::text, 'null')
          || ',"description":' || COALESCE(to_json(NEW.description)::text, 'null')
          || ',"status":' || COALESCE(to_json(NEW.status)::text, 'null')
          || ',"created_at":' || COALESCE('"' || to_char(NEW.created_at AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || ',"updated_at":' || COALESCE('"' || to_char(NEW.updated_at AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || '}';
        RETURN NEW;
      END $$;

      CREATE TRIGGER projects_summary_json BEFORE INSERT OR UPDATE ON projects
        FOR EACH ROW EXECUTE FUNCTION projects_summary_json();

      -- Existing rows: the trigger computes the text.
      UPDATE projects SET summary_json = NULL;
      ALTER TABLE projects ALTER COLUMN summary_json SET NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER projects_summary_json ON projects;
      DROP FUNCTION projects_summary_json();
      ALTER TABLE projects DROP COLUMN summary_json;
    `);
  }
}
