import type { JsonTextTrigger } from '../../common/database/json-trigger.js';
import { jsonValue as v, type JsonValueSql } from '../../common/database/sql-json.js';
import type { DocumentSummary } from './document-views.js';

/**
 * The one definition of a document's list item, `DocumentSummary` (issue 38 item 2): its members,
 * in the order the response sends them, as SQL over a `documents` row alias. Used by the document
 * read (`DOCUMENT_VIEW`, whose object starts with these members) and by the trigger that keeps
 * `documents.summary_json`, which the page of `GET /projects/{id}/documents` concatenates.
 *
 * Changing a member: change it here and in the DTO, then `npm run generate:json-triggers` prints
 * the trigger functions; paste this item's into a new migration (which must also rewrite the
 * stored texts: `UPDATE documents SET summary_json = NULL`, the trigger recomputes them).
 * test/json-triggers.e2e-spec.ts fails until the live function is the generated one and the
 * members are the DTO's properties. docs/contributors/architecture.md, "List items stored as JSON
 * text", has the workflow and the benchmarks that keep the triggers. This one's: the 1,000-row
 * page (7c, `BENCH_ONLY=7c,7h BENCH_ADAPTERS=express npm run bench`) went from 4.29 to 1.18 ms of
 * PostgreSQL CPU, 271 to 573 pages/s at 32 connections (bench/README.md, "each document's list
 * item stored as JSON text").
 */
export const documentSummaryMembers = (
  row: string,
): { [K in keyof DocumentSummary]: JsonValueSql } => ({
  documentId: v.integer(`${row}.id`),
  projectId: v.integer(`${row}.project_id`),
  title: v.text(`${row}.title`),
  status: v.text(`${row}.status`),
  current_version_id: v.integer(`${row}.current_version_id`),
  created_at: v.timestamp(`${row}.created_at`),
  updated_at: v.timestamp(`${row}.updated_at`),
});

/** The trigger that keeps `documents.summary_json` (migrations 1764002900000, 1764005040000). */
export const DOCUMENT_SUMMARY_TRIGGER: JsonTextTrigger = {
  fn: 'documents_summary_json',
  table: 'documents',
  column: 'summary_json',
  members: documentSummaryMembers,
};
