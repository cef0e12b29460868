import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The three triggers that keep list items as JSON text (`documents.summary_json`,
 * `document_versions.index_json`, `projects.summary_json`; migrations 1764002900000,
 * 1764003000000, 1764003100000) replaced by the functions generated from the items' definitions
 * in src (`npm run generate:json-triggers`, issue 38 item 2), pasted here as printed. The hand-
 * written ones differed only by the generated expression's enclosing parentheses: every stored
 * text stays byte for byte what it was, so no row is rewritten and no table is locked beyond the
 * catalog update. test/json-triggers.e2e-spec.ts checks that the live functions are the generated
 * ones.
 */
export class JsonTriggersGenerated1764005040000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- documents.summary_json
      CREATE OR REPLACE FUNCTION documents_summary_json() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.summary_json := ('{"documentId":' || COALESCE((NEW.id)::text, 'null')
          || ',"projectId":' || COALESCE((NEW.project_id)::text, 'null')
          || ',"title":' || COALESCE(to_json(NEW.title)::text, 'null')
          || ',"status":' || COALESCE(to_json(NEW.status)::text, 'null')
          || ',"current_version_id":' || COALESCE((NEW.current_version_id)::text, 'null')
          || ',"created_at":' || COALESCE('"' || to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || ',"updated_at":' || COALESCE('"' || to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || '}');
        RETURN NEW;
      END $$;

      -- document_versions.index_json
      CREATE OR REPLACE FUNCTION document_versions_index_json() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.index_json := ('{"versionId":' || COALESCE((NEW.id)::text, 'null')
          || ',"number":' || COALESCE((NEW.number)::text, 'null')
          || ',"content_hash":' || COALESCE(to_json(NEW.content_hash)::text, 'null')
          || ',"created_at":' || COALESCE('"' || to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || ',"source":' || COALESCE(to_json(NEW.source)::text, 'null')
          || '}');
        RETURN NEW;
      END $$;

      -- projects.summary_json
      CREATE OR REPLACE FUNCTION projects_summary_json() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
      BEGIN
        NEW.summary_json := ('{"projectId":' || COALESCE((NEW.id)::text, 'null')
          || ',"name":' || COALESCE(to_json(NEW.name)::text, 'null')
          || ',"description":' || COALESCE(to_json(NEW.description)::text, 'null')
          || ',"status":' || COALESCE(to_json(NEW.status)::text, 'null')
          || ',"created_at":' || COALESCE('"' || to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || ',"updated_at":' || COALESCE('"' || to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
          || '}');
        RETURN NEW;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION documents_summary_json() RETURNS trigger LANGUAGE plpgsql
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

      CREATE OR REPLACE FUNCTION document_versions_index_json() RETURNS trigger LANGUAGE plpgsql
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

      CREATE OR REPLACE FUNCTION projects_summary_json() RETURNS trigger LANGUAGE plpgsql
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
    `);
  }
}
