import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { memberPath, walkJson } from './json-walk.js';
import { ValidationPipe } from '@nestjs/common';
import { jest } from '@jest/globals';
import { IsObject } from 'class-validator';
import {
  checkBodyShape,
  createValidationPipe,
  FreeJson,
  MAX_BODY_MEMBERS,
  MAX_BODY_TOTAL_MEMBERS,
} from './validation.js';

const BAD = 'bad\u0000text';

/** A request class with free JSON, as a staging's `content`. */
class FreeBody {
  @FreeJson()
  @IsObject({ message: 'must be a JSON object' })
  content!: Record<string, unknown>;
}

/** A JSON value with the bad string at one place, and the path of that place. */
const planted: fc.Arbitrary<{ value: unknown; path: string }> = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.nat({ max: 5 })), { maxLength: 5 }),
  )
  .map(([clean, route]) => {
    // follow `route` into containers made along the way; put the bad string at its end
    const root: { v: unknown } = { v: structuredClone(clean) };
    let holder: Record<string | number, unknown> = root;
    let slot: string | number = 'v';
    let path = 'root';
    for (const step of route) {
      let here = holder[slot];
      if (typeof step === 'number') {
        if (!Array.isArray(here)) holder[slot] = here = [];
        const list = here as unknown[];
        while (list.length <= step) list.push(null);
      } else if (here === null || typeof here !== 'object' || Array.isArray(here)) {
        holder[slot] = here = {};
      }
      holder = here as Record<string | number, unknown>;
      slot = step;
      path = memberPath(path, step);
    }
    holder[slot] = BAD;
    return { value: root.v, path };
  });

const noText = (v: unknown) => (typeof v === 'string' && v.includes('\u0000') ? 'NUL' : null);

describe('walkJson', () => {
  it('finds a problem wherever it is and names it by its path', () => {
    fc.assert(
      fc.property(planted, ({ value, path }) => {
        expect(walkJson(value, 'root', { leaf: noText })).toEqual({ field: path, message: 'NUL' });
      }),
      { numRuns: 2_000 },
    );
  });

  it('finds nothing in clean JSON, and sees every leaf, key and container once', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const counts = { leaf: 0, key: 0, container: 0 };
        const problem = walkJson(value, 'root', {
          leaf: () => (counts.leaf++, null),
          key: () => (counts.key++, null),
          container: () => (counts.container++, null),
        });
        expect(problem).toBeNull();
        const expected = { leaf: 0, key: 0, container: 0 };
        const count = (v: unknown): void => {
          if (v === null || typeof v !== 'object') return void expected.leaf++;
          expected.container++;
          if (!Array.isArray(v)) expected.key += Object.keys(v).length;
          Object.values(v).forEach(count);
        };
        count(value);
        expect(counts).toEqual(expected);
      }),
    );
  });
});

describe('checkBodyShape', () => {
  const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  const free = new Set(['content']);

  it(`refuses an object or array of more than ${MAX_BODY_MEMBERS} members outside free JSON, naming it`, () => {
    expect(checkBodyShape(wide(MAX_BODY_MEMBERS), undefined, free)).toBeNull();
    expect(checkBodyShape(wide(MAX_BODY_MEMBERS + 1), undefined, free)).toEqual({
      field: 'body',
      message: `must not have more than ${MAX_BODY_MEMBERS} members`,
    });
    expect(checkBodyShape({ ttl: wide(MAX_BODY_MEMBERS + 1) }, undefined, free)).toEqual({
      field: 'ttl',
      message: `must not have more than ${MAX_BODY_MEMBERS} members`,
    });
    expect(
      checkBodyShape({ events: [new Array(MAX_BODY_MEMBERS + 1).fill('x')] }, undefined, free),
    ).toEqual({
      field: 'events[0]',
      message: `must not have more than ${MAX_BODY_MEMBERS} members`,
    });
  });

  it('lets free JSON be as wide as the body limit allows', () => {
    const content = { a: wide(50_000), b: new Array(50_000).fill(0) };
    expect(checkBodyShape({ content }, undefined, free)).toBeNull();
  });

  it(`refuses more than ${MAX_BODY_TOTAL_MEMBERS} members in all outside free JSON, however narrow each`, () => {
    const narrow = Array.from({ length: 11 }, () => new Array(MAX_BODY_MEMBERS - 1).fill(0));
    expect(checkBodyShape({ events: narrow.slice(0, 9) }, undefined, free)).toBeNull();
    expect(checkBodyShape({ events: narrow }, undefined, free)).toEqual({
      field: 'body',
      message: `must not have more than ${MAX_BODY_TOTAL_MEMBERS} members in all (free JSON aside)`,
    });
    expect(checkBodyShape({ content: narrow }, undefined, free)).toBeNull();
  });

  it('never hands free JSON to the copy into the request class, an array no more than an object', async () => {
    const pipe = createValidationPipe();
    const copied = jest.spyOn(ValidationPipe.prototype, 'transform');
    try {
      for (const content of [[wide(MAX_BODY_MEMBERS)], wide(MAX_BODY_MEMBERS)]) {
        const body = { content };
        const metadata = { type: 'body' as const, metatype: FreeBody };
        const answer = await pipe.transform(body, metadata).then(
          (dto) => ({ dto }),
          (err: unknown) => ({ err }),
        );
        const seen = copied.mock.calls.at(-1)![0] as { content: unknown };
        expect(seen.content).toEqual(Array.isArray(content) ? [] : {});
        if (Array.isArray(content)) {
          expect((answer as { err: { errors: unknown } }).err.errors).toEqual([
            expect.objectContaining({ field: 'content' }),
          ]);
        } else {
          expect((answer as { dto: { content: unknown } }).dto.content).toBe(content);
        }
      }
    } finally {
      copied.mockRestore();
    }
  });
});
