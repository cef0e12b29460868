import { crc32 } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { digest, digestsEqual, isWellFormedToken, mintToken } from './tokens.js';

describe('tokens', () => {
  it('mints prefixed base62 tokens with a CRC-32 checksum', () => {
    const token = mintToken('gat');
    expect(token).toMatch(/^gat_[0-9A-Za-z]{49}$/);
    const body = token.slice(0, -6);
    const expected = (crc32(body) >>> 0).toString();
    // decode the base62 checksum independently of the implementation
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const decoded = [...token.slice(-6)].reduce((n, c) => n * 62 + alphabet.indexOf(c), 0);
    expect(String(decoded)).toBe(expected);
    expect(isWellFormedToken(token, 'gat')).toBe(true);
  });

  it('refuses a token with a wrong checksum, prefix or length', () => {
    const token = mintToken('glk');
    const last = token.at(-1) === 'a' ? 'b' : 'a';
    expect(isWellFormedToken(token.slice(0, -1) + last, 'glk')).toBe(false);
    expect(isWellFormedToken(token, 'gat')).toBe(false);
    expect(isWellFormedToken(token + 'x', 'glk')).toBe(false);
    expect(isWellFormedToken('', 'glk')).toBe(false);
  });

  it('mints distinct tokens and compares digests', () => {
    const a = mintToken('gpat');
    const b = mintToken('gpat');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^gpat_/);
    expect(digestsEqual(digest(a), digest(a))).toBe(true);
    expect(digestsEqual(digest(a), digest(b))).toBe(false);
  });
});
