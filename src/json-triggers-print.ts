import { jsonTriggerFunction } from './common/database/json-trigger.js';
import { JSON_TRIGGERS } from './json-triggers.js';

/**
 * `npm run generate:json-triggers`: prints the trigger functions generated from the items'
 * definitions, to paste into a new migration when an item changes (a migration never changes when
 * src does). See docs/contributors/architecture.md, "List items stored as JSON text".
 */
for (const t of JSON_TRIGGERS) {
  process.stdout.write(`-- ${t.table}.${t.column}\n${jsonTriggerFunction(t)}\n\n`);
}
