import type { JsonTextTrigger } from './common/database/json-trigger.js';
import { DOCUMENT_SUMMARY_TRIGGER } from './modules/documents/document-summary.shape.js';
import { VERSION_INDEX_ENTRY_TRIGGER } from './modules/documents/version-index-entry.shape.js';
import { PROJECT_VIEW_TRIGGER } from './modules/projects/project-view.shape.js';

/**
 * Every trigger that keeps a list item as JSON text, each generated from its item's definition:
 * what `npm run generate:json-triggers` prints and test/json-triggers.e2e-spec.ts checks against
 * the migrated database. A new one is listed here.
 */
export const JSON_TRIGGERS: readonly JsonTextTrigger[] = [
  DOCUMENT_SUMMARY_TRIGGER,
  VERSION_INDEX_ENTRY_TRIGGER,
  PROJECT_VIEW_TRIGGER,
];
