import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  type JsonTextTrigger,
  jsonTriggerBody,
  normalizeSqlWhitespace,
} from '../src/common/database/json-trigger.js';
import { jsonValue as v } from '../src/common/database/sql-json.js';
import { JSON_TRIGGERS } from '../src/json-triggers.js';
import {
  DOCUMENT_SUMMARY_TRIGGER,
  documentSummaryMembers,
} from '../src/modules/documents/document-summary.shape.js';
import { VERSION_INDEX_ENTRY_TRIGGER } from '../src/modules/documents/version-index-entry.shape.js';
import { PROJECT_VIEW_TRIGGER } from '../src/modules/projects/project-view.shape.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

/**
 * Issue 38 item 2: a list item stored as JSON text has one definition in src (its `*.shape.ts`),
 * and its trigger is generated from it. Here: the trigger function the migrated database runs is,
 * up to layout, the one generated from the definition (so a definition changed without a new
 * migration fails), and each definition's members, in order, are the properties the OpenAPI
 * document gives the list's item (so a DTO property missing from the definition fails).
 */

type Json = Record<string, any>;
const openapi = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'openapi.json'), 'utf8'),
) as Json;
const schemas = openapi.components.schemas as Record<string, Json>;

/** The properties, in order, of the item of a list response's `data`. */
function listItemProperties(listSchema: string): string[] {
  const ref = schemas[listSchema]!.properties.data.items.$ref as string;
  return Object.keys(schemas[ref.replace('#/components/schemas/', '')]!.properties);
}

const memberNames = (t: JsonTextTrigger): string[] => Object.keys(t.members('r'));

/** `t` with one more member at its end: what adding a field to a definition does. */
const planted = (t: JsonTextTrigger): JsonTextTrigger => ({
  ...t,
  members: (row) => ({ ...t.members(row), planted: v.text(`${row}.id`) }),
});

/** Each item's list, in the integration API's document. */
const LISTS: [JsonTextTrigger, string][] = [
  [DOCUMENT_SUMMARY_TRIGGER, 'DocumentListResponse'],
  [VERSION_INDEX_ENTRY_TRIGGER, 'VersionListResponse'],
  [PROJECT_VIEW_TRIGGER, 'ProjectListResponse'],
];

interface LiveTrigger {
  prosrc: string;
  proconfig: string[] | null;
  lanname: string;
  rettype: string;
  triggerdef: string | null;
}

describe('list items stored as JSON text: triggers generated from one definition', () => {
  let db: TestDatabase;
  let client: pg.Client;
  const live = new Map<string, LiveTrigger>();

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.directUrl });
    await client.connect();
    for (const t of JSON_TRIGGERS) {
      const { rows } = await client.query<LiveTrigger>(
        `SELECT p.prosrc, p.proconfig, l.lanname, p.prorettype::regtype::text AS rettype,
                (SELECT pg_get_triggerdef(tg.oid) FROM pg_trigger tg
                  WHERE tg.tgfoid = p.oid AND tg.tgname = p.proname
                    AND tg.tgrelid = $2::regclass) AS triggerdef
           FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.proname = $1 AND p.pronamespace = 'public'::regnamespace`,
        [t.fn, t.table],
      );
      expect(rows).toHaveLength(1);
      live.set(t.fn, rows[0]!);
    }
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('lists every column the migrations keep by such a trigger, and each list item', () => {
    expect(JSON_TRIGGERS.map((t) => `${t.table}.${t.column}`).sort()).toEqual([
      'document_versions.index_json',
      'documents.summary_json',
      'projects.summary_json',
    ]);
    expect(LISTS.map(([t]) => t)).toEqual(expect.arrayContaining([...JSON_TRIGGERS]));
  });

  it.each(JSON_TRIGGERS.map((t) => [t.fn, t] as const))(
    '%s is the function generated from its definition',
    (fn, t) => {
      const row = live.get(fn)!;
      expect(normalizeSqlWhitespace(row.prosrc)).toBe(normalizeSqlWhitespace(jsonTriggerBody(t)));
      expect(row).toMatchObject({
        lanname: 'plpgsql',
        rettype: 'trigger',
        proconfig: ['search_path=pg_catalog, pg_temp'],
      });
      expect(row.triggerdef).toBe(
        `CREATE TRIGGER ${fn} BEFORE INSERT OR UPDATE ON public.${t.table} ` +
          `FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
      );
    },
  );

  it('fails a definition that the live function does not follow (planted checks)', () => {
    for (const t of JSON_TRIGGERS) {
      const liveBody = normalizeSqlWhitespace(live.get(t.fn)!.prosrc);
      // a member added to the definition without a new migration
      expect(normalizeSqlWhitespace(jsonTriggerBody(planted(t)))).not.toBe(liveBody);
      // the members reordered
      const reversed: JsonTextTrigger = {
        ...t,
        members: (row) => Object.fromEntries(Object.entries(t.members(row)).reverse()),
      };
      expect(normalizeSqlWhitespace(jsonTriggerBody(reversed))).not.toBe(liveBody);
      // a literal changed (microseconds for milliseconds): layout only is absorbed
      const generated = jsonTriggerBody(t);
      expect(generated).toContain('.MS"Z"');
      expect(normalizeSqlWhitespace(generated.replaceAll('.MS"Z"', '.US"Z"'))).not.toBe(liveBody);
      expect(normalizeSqlWhitespace(generated.replaceAll('\n', '\n\t  '))).toBe(liveBody);
    }
  });

  it.each(LISTS.map(([t, list]) => [t.fn, list, t] as const))(
    "%s: the definition's members are the properties of %s's item, in order",
    (_fn, list, t) => {
      const properties = listItemProperties(list);
      expect(properties.length).toBeGreaterThan(0);
      expect(memberNames(t)).toEqual(properties);
      // planted: a member the DTO does not have, or a DTO property the definition lacks
      expect(memberNames(planted(t))).not.toEqual(properties);
      expect(memberNames(t).slice(0, -1)).not.toEqual(properties);
    },
  );

  it("the document read's object starts with the document summary's members", () => {
    // DOCUMENT_VIEW (documents-read.repository.ts) spreads `documentSummaryMembers('d')`
    expect(Object.keys(schemas.DocumentResponse!.properties)).toEqual([
      ...Object.keys(documentSummaryMembers('d')),
      'versions',
      'versions_next_cursor',
    ]);
  });
});
