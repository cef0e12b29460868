import { jsonObjectText, type JsonValueSql } from './sql-json.js';

/**
 * A column that keeps a row's list item as JSON text, written by a BEFORE INSERT OR UPDATE
 * trigger (issue 24): `documents.summary_json`, `document_versions.index_json`,
 * `projects.summary_json`. `members` is the item's one definition (its `*.shape.ts` file), the
 * same one the statements of src that build the item use; the trigger function is generated from
 * it (`jsonTriggerFunction`) and pasted into a migration, because a migration never changes when
 * src does. test/json-triggers.e2e-spec.ts checks that the function PostgreSQL runs is the
 * generated one.
 */
export interface JsonTextTrigger {
  /** The trigger function's name, also the trigger's. */
  fn: string;
  table: string;
  column: string;
  /** The item's members over a row alias, as `jsonObjectText` takes them. */
  members: (row: string) => Record<string, JsonValueSql>;
}

/**
 * The plpgsql body of the trigger function (what `pg_proc.prosrc` holds): the item of `NEW` as
 * `jsonObjectText` writes it, one member a line.
 */
export function jsonTriggerBody(t: JsonTextTrigger): string {
  // line breaks between members only: whitespace, outside every literal but the member names'
  const item = jsonObjectText(t.members('NEW'))
    .replaceAll(` || ',"`, `\n    || ',"`)
    .replace(/ \|\| '\}'\)$/, `\n    || '}')`);
  return `
BEGIN
  NEW.${t.column} := ${item};
  RETURN NEW;
END `;
}

/**
 * The statement that replaces the trigger function, for a new migration. It names nothing outside
 * pg_catalog and pins its search_path, because it runs as whoever writes (the owner role too).
 */
export function jsonTriggerFunction(t: JsonTextTrigger): string {
  return `CREATE OR REPLACE FUNCTION ${t.fn}() RETURNS trigger LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp AS $$${jsonTriggerBody(t)}$$;`;
}

/**
 * SQL text with every run of whitespace outside single-quoted literals made one space, and none at
 * either end: two texts that PostgreSQL reads alike up to layout compare equal, while a changed
 * literal (a member name, a format) does not.
 */
export function normalizeSqlWhitespace(text: string): string {
  return text
    .split(/('(?:[^']|'')*')/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/\s+/g, ' ')))
    .join('')
    .trim();
}
