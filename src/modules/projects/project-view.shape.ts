import type { JsonTextTrigger } from '../../common/database/json-trigger.js';
import { jsonValue as v, type JsonValueSql } from '../../common/database/sql-json.js';
import type { ProjectView } from './projects.views.js';

/**
 * The one definition of a project's list item, `ProjectView` (issue 38 item 2): its members, in
 * the order the response sends them, as SQL over a `projects` row alias. The trigger that keeps
 * `projects.summary_json`, which the pages of `GET /projects` concatenate, is generated from it.
 *
 * Changing a member: as for `documentSummaryMembers` (src/modules/documents/
 * document-summary.shape.ts), with `UPDATE projects SET summary_json = NULL` in the new migration.
 * Kept for speed: 0.4-0.5 ms less PostgreSQL CPU per page and 40 % more pages/s for scenario 2
 * (`BENCH_ONLY=1,2,7a,7b BENCH_ADAPTERS=express`; bench/README.md, "the projects page from stored
 * texts").
 */
export const projectViewMembers = (row: string): { [K in keyof ProjectView]: JsonValueSql } => ({
  projectId: v.integer(`${row}.id`),
  name: v.text(`${row}.name`),
  description: v.text(`${row}.description`),
  status: v.text(`${row}.status`),
  created_at: v.timestamp(`${row}.created_at`),
  updated_at: v.timestamp(`${row}.updated_at`),
});

/** The trigger that keeps `projects.summary_json` (migrations 1764003100000, 1764005040000). */
export const PROJECT_VIEW_TRIGGER: JsonTextTrigger = {
  fn: 'projects_summary_json',
  table: 'projects',
  column: 'summary_json',
  members: projectViewMembers,
};
