import { describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import { contentHash } from './content-hash.js';

// RFC 8785 §3.2.2: the input and its canonical form, hashed independently (Python hashlib)
const RFC_INPUT = String.raw`{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`;
const RFC_CANONICAL = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
const RFC_CANONICAL_SHA256 = '2d5e01a318d0f0879ab568c4be289c8b1f64ef8921a53c6277d5e069978baacb';

describe('contentHash', () => {
  it('hashes the RFC 8785 canonical form of the RFC example', () => {
    const input: unknown = JSON.parse(RFC_INPUT);
    expect(canonicalize(input)).toBe(RFC_CANONICAL);
    expect(contentHash(input)).toBe(RFC_CANONICAL_SHA256);
  });

  it('is lowercase hex SHA-256 of the canonical JSON', () => {
    expect(contentHash({ b: [true, null], a: 1 })).toBe(
      '1cc69c7fa23616ca2ec3ee70d24390a6225c8832db8a4c814c7e0e7f942f8668',
    );
  });

  it('ignores key order at every depth and number spelling', () => {
    const a = JSON.parse('{"x":{"p":1,"q":[{"m":2.0,"n":"s"}]},"y":10}') as unknown;
    const b = JSON.parse('{"y":1e1,"x":{"q":[{"n":"s","m":2}],"p":1}}') as unknown;
    expect(contentHash(a)).toBe(contentHash(b));
  });

  it('tells different content apart, array order included', () => {
    expect(contentHash({ a: [1, 2] })).not.toBe(contentHash({ a: [2, 1] }));
    expect(contentHash({ a: '1' })).not.toBe(contentHash({ a: 1 }));
  });
});
