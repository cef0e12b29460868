import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { contentDiff } from './revision-diff.js';

type Content = Record<string, unknown>;

/** A JSON value without `__proto__` keys, at any depth: the API refuses those (400). */
function storable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(storable);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== '__proto__') out[key] = storable(v);
  }
  return out;
}

/** Contents as the API stores them: objects of any JSON, keys with `/` and `~` included. */
const content = (): fc.Arbitrary<Content> =>
  fc
    .dictionary(
      fc.oneof(fc.string(), fc.constantFrom('a/b', '~1', '~0', '', 'constructor', 'toString')),
      fc.jsonValue({ maxDepth: 4 }),
    )
    .map((c) => storable(c) as Content);

const clone = <T>(v: T): T => structuredClone(v);
/** As JSON carries it (the patch's values are copied through JSON text: -0 becomes 0). */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('contentDiff', () => {
  it('is an RFC 6902 patch that turns the first content into the second', () => {
    fc.assert(
      fc.property(content(), content(), (from, to) => {
        const patch = contentDiff(from, to);
        // strict validation: every operation well-formed and applicable in order
        const applied = jsonPatch.applyPatch(clone(from), clone(patch), true, false).newDocument;
        expect(asJson(applied)).toEqual(asJson(to));
        for (const op of patch) expect(['add', 'remove', 'replace']).toContain(op.op);
      }),
      { numRuns: 300 },
    );
  });

  it('is empty for equal contents and leaves both untouched', () => {
    fc.assert(
      fc.property(content(), (c) => {
        const before = clone(c);
        const copy = clone(c);
        expect(contentDiff(c, copy)).toEqual([]);
        expect(c).toEqual(before);
        expect(copy).toEqual(before);
      }),
    );
  });

  it('escapes keys as RFC 6901 pointers', () => {
    expect(contentDiff({ 'a/b': 1, '~x': 1 }, { 'a/b': 2, '~x': 3, n: { m: [1] } })).toEqual([
      { op: 'replace', path: '/~0x', value: 3 },
      { op: 'replace', path: '/a~1b', value: 2 },
      { op: 'add', path: '/n', value: { m: [1] } },
    ]);
  });
});
