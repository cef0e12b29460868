import type { FieldError } from './app-error.js';
import { memberPath } from './json-walk.js';

/** How large a JSON value a request may carry (`CONTENT_MAX_NODES`, `CONTENT_MAX_DEPTH`). */
export interface JsonLimits {
  /** Values in one top-level member's value (`content`), the member's own value included. */
  readonly maxNodes: number;
  /** Levels of objects and arrays in one top-level member's value; its own object is level 1. */
  readonly maxDepth: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxNodes: 100_000, maxDepth: 64 };

/**
 * Values the whole body may hold: one free JSON member at `maxNodes`, and as many again for the
 * rest (which the validation pipe bounds far lower: 10,000 members outside free JSON).
 */
export const bodyMaxNodes = (limits: JsonLimits): number => 2 * limits.maxNodes + 1;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;
const COLON = 58;

/** Whether `c` is JSON whitespace or a character that ends a bare token. */
function endsBareToken(c: number): boolean {
  return (
    c === 32 ||
    c === 9 ||
    c === 10 ||
    c === 13 ||
    c === COMMA ||
    c === COLON ||
    c === CLOSE_OBJECT ||
    c === CLOSE_ARRAY ||
    c === OPEN_OBJECT ||
    c === OPEN_ARRAY ||
    c === QUOTE
  );
}

/** The index of the quote closing the string opened at `start`, or the text's length. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return text.length;
}

/**
 * Counts a JSON text's values and levels token by token, before anything is built from it, and
 * answers the first limit it passes: a top-level member's value (`content`) holding more than
 * `maxNodes` values or more than `maxDepth` levels, or the body more than `bodyMaxNodes` values.
 *
 * What counts: every value is one — each object, array, string, number, `true`, `false` and
 * `null`, containers included; an object's keys do not count. A level is an object or array: a
 * member's own object is level 1, an object inside it level 2; a string or number adds none.
 * The root object (or array) is the body, not a level of any member; its members are the
 * top-level ones.
 *
 * One pass, no value built, memory bounded by `maxDepth`: a counter, not a parser. Text that is
 * not JSON is counted as far as it reads (JSON.parse refuses it afterwards), and a limit passed in
 * malformed text is answered as a limit.
 */
export function jsonLimitProblem(text: string, limits: JsonLimits): FieldError | null {
  const { maxNodes, maxDepth } = limits;
  const bodyNodes = bodyMaxNodes(limits);
  // levels open now: the root is level 0; whether each open level is an object (for keys)
  const objectAt: boolean[] = [];
  let depth = -1;
  let expectKey = false;
  let total = 0;
  let member = 0; // values in the current top-level member
  let memberIndex = -1; // of the root array's current element
  let keyStart = -1; // of the root object's current key
  let keyEnd = -1;
  const memberName = (): string => {
    if (objectAt[0] === false) return memberPath('', memberIndex);
    if (keyStart < 0) return 'body';
    try {
      return memberPath('', JSON.parse(text.slice(keyStart, keyEnd + 1)) as string);
    } catch {
      return 'body';
    }
  };
  const tooMany = (): FieldError => ({
    field: memberName(),
    message: `must not hold more than ${maxNodes} values in all (CONTENT_MAX_NODES; every object, array, string, number, boolean and null counts)`,
  });
  /** Counts a value starting at this point; answers a problem or null. */
  const value = (): FieldError | null => {
    total++;
    if (depth === 0) {
      member = 0;
      if (objectAt[0] === false) memberIndex++;
    }
    if (depth >= 0) {
      member++;
      if (member > maxNodes) return tooMany();
    }
    if (total > bodyNodes) {
      return { field: 'body', message: `must not hold more than ${bodyNodes} values in all` };
    }
    return null;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        if (depth === 0) {
          keyStart = i;
          keyEnd = end;
        }
        expectKey = false;
      } else {
        const problem = value();
        if (problem) return problem;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const problem = value();
      if (problem) return problem;
      depth++;
      if (depth > maxDepth) {
        return {
          field: memberName(),
          message: `must not be nested deeper than ${maxDepth} levels (CONTENT_MAX_DEPTH)`,
        };
      }
      objectAt[depth] = c === OPEN_OBJECT;
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      // more closing than opening: not JSON, which JSON.parse will say
      if (depth < 0) return null;
      depth--;
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = depth >= 0 && objectAt[depth] === true;
    } else if (c === COLON) {
      expectKey = false;
    } else if (!endsBareToken(c)) {
      // a number, true, false or null: one value, to the next delimiter
      const problem = value();
      if (problem) return problem;
      while (i + 1 < text.length && !endsBareToken(text.charCodeAt(i + 1))) i++;
    }
  }
  return null;
}

/** The limits the configuration sets. */
export function jsonLimitsOf(config: {
  CONTENT_MAX_NODES: number;
  CONTENT_MAX_DEPTH: number;
}): JsonLimits {
  return { maxNodes: config.CONTENT_MAX_NODES, maxDepth: config.CONTENT_MAX_DEPTH };
}
