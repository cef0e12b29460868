import { describe, expect, it } from '@jest/globals';
import { DEFAULT_JSON_LIMITS, jsonLimitProblem } from '../src/common/http/json-limits.js';
import { heavyBody, MIB } from './heavy-bodies.js';
import { HEAVY_CASES } from './heavy-content.js';

/** The service's own defaults: CONTENT_MAX_NODES 100,000, CONTENT_MAX_DEPTH 64, BODY_LIMIT 5 MiB. */
const BODY_LIMIT = 5 * MIB;

describe("group 10's staging bodies", () => {
  it.each(HEAVY_CASES.map((c) => [c.id, c.shape, c.mib] as const))(
    '%s (%s, %d MiB) is exactly its size and within the content limits',
    (_id, shape, mib) => {
      const body = heavyBody(shape, mib * MIB);
      expect(Buffer.byteLength(body)).toBe(mib * MIB);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT);
      expect(jsonLimitProblem(body, DEFAULT_JSON_LIMITS)).toBeNull();
      const parsed = JSON.parse(body) as { content: Record<string, unknown> };
      expect(typeof parsed.content).toBe('object');
    },
  );

  it('wide: few values, long strings', () => {
    const body = heavyBody('wide', 4 * MIB);
    expect(jsonLimitProblem(body, { maxNodes: 1_000, maxDepth: 3 })).toBeNull();
  });

  it('deep: past 60 levels and 80,000 values, so it is deep and many-valued', () => {
    for (const mib of [1, 4]) {
      const body = heavyBody('deep', mib * MIB);
      expect(jsonLimitProblem(body, { maxNodes: 100_000, maxDepth: 60 })).not.toBeNull();
      expect(jsonLimitProblem(body, { maxNodes: 80_000, maxDepth: 64 })).not.toBeNull();
    }
  });

  it('is the same text every time (every run stages the same bytes)', () => {
    expect(heavyBody('deep', MIB)).toBe(heavyBody('deep', MIB));
  });
});
