import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bodyMaxNodes, jsonLimitProblem, type JsonLimits } from './json-limits.js';

/** Values in `v` as the limit counts them: every value, containers included; keys not. */
function nodesOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, m) => n + nodesOf(m), 0);
  if (v !== null && typeof v === 'object') {
    return 1 + Object.values(v).reduce((n: number, m) => n + nodesOf(m), 0);
  }
  return 1;
}

/** Levels of objects and arrays in `v`: its own container is 1, a string or number 0. */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const members: unknown[] = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...members.map(depthOf));
}

const nested = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

const body = (content: unknown): string => JSON.stringify({ content });

describe('JSON values counted before parsing', () => {
  const limits: JsonLimits = { maxNodes: 50, maxDepth: 6 };

  it('lets exactly maxNodes values through and refuses one more, naming the member and the limit', () => {
    // the object itself and 49 members: 50 values
    const at = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, i]));
    expect(jsonLimitProblem(body(at), limits)).toBeNull();
    expect(jsonLimitProblem(body({ ...at, one: null }), limits)).toEqual({
      field: 'content',
      message: expect.stringContaining(
        'must not hold more than 50 values in all (CONTENT_MAX_NODES',
      ),
    });
  });

  it('counts containers, strings, numbers, true, false and null alike, and no key', () => {
    const text = '{"content":{"a":[{},[],"s",-1.5e3,true,false,null,{"b":{}}]}}';
    // content, [..], {}, [], "s", -1.5e3, true, false, null, {"b":..}, {}
    expect(nodesOf(JSON.parse(text).content)).toBe(11);
    expect(jsonLimitProblem(text, { maxNodes: 11, maxDepth: 10 })).toBeNull();
    expect(jsonLimitProblem(text, { maxNodes: 10, maxDepth: 10 })?.field).toBe('content');
  });

  it('lets exactly maxDepth levels through and refuses one more', () => {
    expect(depthOf(nested(6))).toBe(6);
    expect(jsonLimitProblem(body(nested(6)), limits)).toBeNull();
    expect(jsonLimitProblem(body(nested(7)), limits)).toEqual({
      field: 'content',
      message: 'must not be nested deeper than 6 levels (CONTENT_MAX_DEPTH)',
    });
  });

  it('counts each top-level member on its own, names it, and bounds the body as a whole', () => {
    const wide = (n: number): unknown[] => Array.from({ length: n - 1 }, () => 0);
    expect(jsonLimitProblem(JSON.stringify({ a: wide(50), b: wide(50) }), limits)).toBeNull();
    expect(jsonLimitProblem(JSON.stringify({ a: wide(50), 'b c': wide(51) }), limits)?.field).toBe(
      '["b c"]',
    );
    expect(jsonLimitProblem(JSON.stringify([nested(3), nested(7)]), limits)?.field).toBe('[1]');
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [i, 1])));
    expect(bodyMaxNodes(limits)).toBe(101);
    expect(jsonLimitProblem(many, limits)).toEqual({
      field: 'body',
      message: 'must not hold more than 101 values in all',
    });
  });

  it('is not misled by brackets, quotes, commas or colons inside strings and keys', () => {
    const tricky = { '{[,:"\\': '}]]]"\\",:{', x: ['\\"', '[[[[[[[[['] };
    expect(jsonLimitProblem(body(tricky), { maxNodes: 5, maxDepth: 2 })).toBeNull();
    expect(jsonLimitProblem(body(tricky), { maxNodes: 5, maxDepth: 1 })).not.toBeNull();
    expect(jsonLimitProblem(body(tricky), { maxNodes: 4, maxDepth: 2 })).not.toBeNull();
  });

  it('stops at the limit: 1.7 million {} are refused without being built', () => {
    const text = `{"content":{"a":[${Array(1_700_000).fill('{}').join(',')}]}}`;
    expect(jsonLimitProblem(text, { maxNodes: 100_000, maxDepth: 64 })?.field).toBe('content');
  });

  it('agrees with the value JSON.parse builds, whitespace and all (property)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        (content, maxNodes, maxDepth, spaced) => {
          const text = spaced ? JSON.stringify({ content }, null, 2) : body(content);
          const fits = nodesOf(content) <= maxNodes && depthOf(content) <= maxDepth;
          const problem = jsonLimitProblem(text, { maxNodes, maxDepth });
          expect(problem === null).toBe(fits);
          if (problem) expect(problem.field).toBe('content');
        },
      ),
      { numRuns: 500 },
    );
  });
});
