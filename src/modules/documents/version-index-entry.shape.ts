import type { JsonTextTrigger } from '../../common/database/json-trigger.js';
import { jsonValue as v, type JsonValueSql } from '../../common/database/sql-json.js';
import type { VersionIndexEntry } from './document-views.js';

/**
 * The one definition of a version index entry, `VersionIndexEntry` (issue 38 item 2): its members,
 * in the order the response sends them, as SQL over a `document_versions` row alias. The trigger
 * that keeps `document_versions.index_json` is generated from it; the document read and the pages
 * of `GET /documents/{id}/versions` concatenate those texts.
 *
 * Changing a member: as for `documentSummaryMembers` (document-summary.shape.ts), with
 * `UPDATE document_versions SET index_json = NULL` in the new migration. Kept for speed: the read of
 * a 10,000-version document (7f, `BENCH_ONLY=7f,7g BENCH_ADAPTERS=express`, e63286d) went from 3.9
 * to 2.1-2.2 ms of PostgreSQL per read, 333/338 to 478/450 reads/s (bench/README.md, "the version
 * index stored as JSON text").
 */
export const versionIndexEntryMembers = (
  row: string,
): { [K in keyof VersionIndexEntry]: JsonValueSql } => ({
  versionId: v.integer(`${row}.id`),
  number: v.integer(`${row}.number`),
  content_hash: v.text(`${row}.content_hash`),
  created_at: v.timestamp(`${row}.created_at`),
  source: v.text(`${row}.source`),
});

/** The trigger that keeps `document_versions.index_json` (1764003000000, 1764005040000). */
export const VERSION_INDEX_ENTRY_TRIGGER: JsonTextTrigger = {
  fn: 'document_versions_index_json',
  table: 'document_versions',
  column: 'index_json',
  members: versionIndexEntryMembers,
};
