import type { IncomingHttpHeaders } from 'node:http';
import { ValidationFailedError } from './app-error.js';
import {
  MAX_BODY_MEMBERS,
  MAX_BODY_TOTAL_MEMBERS,
  TOO_MANY_IN_ALL,
  TOO_MANY_MEMBERS,
} from './body-bounds.js';
import { bodyText, parseJson } from './body-decoding.js';
import { canonicalJson, hashOfCanonical, jsonbBytes } from './canonical-json.js';
import type { JsonLimits } from './json-limits.js';
import { memberPath, walkJson } from './json-walk.js';
import { freeJsonProblem, type PreparedMember } from './prepared-json.js';

/** A big JSON body as the worker answers it: its small part, and its object and array members. */
export interface DecodedBigJson {
  /** The body, each prepared member's value replaced by null (so its key keeps its place). */
  readonly body: unknown;
  readonly prepared: readonly PreparedMember[];
}

/** Values in `value`, its own included. */
function nodesIn(value: unknown): number {
  let nodes = 1;
  walkJson(value, '', {
    container: (_depth, _free, size) => {
      nodes += size;
      return null;
    },
  });
  return nodes;
}

/**
 * Decodes a big JSON body (`decodeBody`: its values counted before it is parsed) and prepares each
 * object or array member of its root object: counted, checked as free JSON, canonicalised and
 * hashed, so the event loop never walks it. `textMade` runs once the bytes are text (the worker
 * frees them then: 5 MB less held while the value is parsed and canonicalised). What the validation pipe would refuse at once in the
 * small rest (a root of more than MAX_BODY_MEMBERS members, a root array of more than
 * MAX_BODY_TOTAL_MEMBERS values, a top-level `__proto__`) is refused here, so that no big value
 * crosses back. Runs in the JSON worker; throws as `decodeBody` does.
 */
export function decodeBigJson(
  headers: IncomingHttpHeaders,
  raw: Buffer,
  limit: number,
  limits: JsonLimits,
  textMade: () => void = () => {},
): DecodedBigJson {
  // decodeBody('json', …) in two steps: the bytes can be freed once they are text
  const text = bodyText(headers, raw, limit);
  textMade();
  const body = parseJson(text, limits);
  if (body === null || typeof body !== 'object') return { body, prepared: [] };
  if (Array.isArray(body)) {
    if (body.length > MAX_BODY_MEMBERS) refuse('body', TOO_MANY_MEMBERS);
    if (nodesIn(body) - 1 > MAX_BODY_TOTAL_MEMBERS) refuse('body', TOO_MANY_IN_ALL);
    return { body, prepared: [] };
  }
  const root = body as Record<string, unknown>;
  const keys = Object.keys(root);
  if (keys.length > MAX_BODY_MEMBERS) refuse('body', TOO_MANY_MEMBERS);
  // never crosses as a key: the receiving side would have to take care not to set a prototype
  if (keys.includes('__proto__')) refuse('__proto__', 'should not exist');
  const prepared: PreparedMember[] = [];
  for (const key of keys) {
    const value = root[key];
    if (value === null || typeof value !== 'object') continue;
    prepared.push(prepare(key, value));
    root[key] = null;
  }
  return { body: root, prepared };
}

function prepare(key: string, value: object): PreparedMember {
  const array = Array.isArray(value);
  const nodes = nodesIn(value);
  const problem = freeJsonProblem(value, memberPath('', key));
  if (problem) return { key, array, nodes, problem, jsonb: new Uint8Array(0), hash: '' };
  const canonical = canonicalJson(value);
  return {
    key,
    array,
    nodes,
    problem: null,
    jsonb: jsonbBytes(canonical),
    hash: hashOfCanonical(canonical),
  };
}

function refuse(field: string, message: string): never {
  throw new ValidationFailedError([{ field, message }]);
}
