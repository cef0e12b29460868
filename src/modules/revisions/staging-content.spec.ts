import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { PreparedJson } from '../../common/http/prepared-json.js';
import { jsonbBytes } from '../../common/http/canonical-json.js';
import type { StageRevisionRequest } from './dto/stage-revision.request.js';
import { requestHash, storableContent } from './staging-content.js';
import type { IfMatch } from './staging-headers.js';

/** The request hash as it was made before the content's text was spliced in: keys stored then. */
function wholeHash(
  dto: StageRevisionRequest,
  hashes: string[] | '*' | null,
  lock: boolean,
): string {
  const canonical = canonicalize({
    body: {
      content: dto.content,
      base_version_id: dto.base_version_id ?? null,
      html: dto.html ?? null,
      source_reference: dto.source_reference ?? null,
    },
    if_match: hashes === null ? null : hashes === '*' ? '*' : [...hashes].sort(),
    lock_token: lock,
  });
  return createHash('sha256').update(canonical!).digest('hex');
}

function holdsProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(holdsProtoKey);
}

describe('staging content', () => {
  it('hashes a request as canonicalising the whole body did (stored Idempotency-Keys still match)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
        fc.option(fc.integer({ min: 1, max: 2_147_483_647 }), { nil: undefined }),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.oneof(fc.constant('*' as const), fc.array(fc.string())), { nil: null }),
        fc.boolean(),
        (content, base, html, source, hashes, lock) => {
          const dto = { content, base_version_id: base, html, source_reference: source };
          // a `__proto__` key at any depth is refused (tested elsewhere), never hashed
          fc.pre(!holdsProtoKey(content));
          const { json } = storableContent(content);
          const ifMatch: IfMatch | undefined =
            hashes === null
              ? undefined
              : hashes === '*'
                ? { any: true }
                : { any: false, hashes: [...hashes] };
          const headers = lock ? { lockToken: 'x' } : {};
          const expected = wholeHash(dto, hashes, lock);
          expect(requestHash(dto as StageRevisionRequest, json, ifMatch, headers)).toBe(expected);
          // the same from a big body's binary jsonb form
          expect(
            requestHash(dto as StageRevisionRequest, jsonbBytes(json as string), ifMatch, headers),
          ).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes a prepared content as the worker made it, and refuses one with a problem', () => {
    const member = { key: 'content', array: false, nodes: 2 };
    const jsonb = jsonbBytes('{"a":"é"}');
    const ok = new PreparedJson({ ...member, problem: null, jsonb, hash: 'h' });
    // PostgreSQL's binary jsonb: version 1, then the text as UTF-8
    expect(storableContent(ok)).toEqual({
      json: Buffer.from([1, ...Buffer.from('{"a":"é"}')]),
      hash: 'h',
    });
    expect(ok.canonical).toBe('{"a":"é"}');
    const problem = { field: 'content.a', message: 'must not contain the NUL character (U+0000)' };
    const bad = new PreparedJson({ ...member, problem, jsonb: new Uint8Array(0), hash: '' });
    expect(() => storableContent(bad)).toThrow('content.a: must not contain the NUL character');
  });
});
