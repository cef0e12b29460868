import { ValidationFailedError } from './app-error.js';
import { canonicalJson, hashOfCanonical, type JsonbParam } from './canonical-json.js';
import { freeJsonProblem, type FreeJsonValue, PreparedJson } from './prepared-json.js';

/** Content as stored: its canonical JSON (the `jsonb` parameter) and that text's SHA-256. */
export interface StorableContent {
  /** Text, or a big body's binary `jsonb` bytes (made off the event loop, moved not copied). */
  json: JsonbParam;
  hash: string;
}

/**
 * The content as canonical JSON (sent as the `jsonb` parameter: one serialisation serves both)
 * and its hash, refusing content PostgreSQL or JSON cannot store faithfully as a 400 naming the
 * path instead of a 500: U+0000 or a lone surrogate in a string or key (also refused by the
 * validation pipe), a number beyond double range that JSON.parse turned into Infinity. A big
 * body's content arrives prepared (checked, canonicalised and hashed off the event loop).
 */
export function storableContent(
  content: FreeJsonValue<Record<string, unknown>>,
  field = 'content',
): StorableContent {
  if (content instanceof PreparedJson) {
    if (content.problem) throw new ValidationFailedError([content.problem]);
    return { json: content.jsonb, hash: content.hash };
  }
  const problem = freeJsonProblem(content, field);
  if (problem) throw new ValidationFailedError([problem]);
  const json = canonicalJson(content);
  return { json, hash: hashOfCanonical(json) };
}
