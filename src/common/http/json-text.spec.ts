import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { JsonText } from './json-text.js';

describe('JsonText', () => {
  it('sends the UTF-8 bytes of its whole text, however the text is cut into pieces', () => {
    // pieces are whole strings (PostgreSQL's texts, JSON.stringify's): any code point, no lone
    // surrogate, cut anywhere between code points
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 300 }), { maxLength: 12 }),
        (pieces) => {
          const text = new JsonText(...pieces);
          expect(text.text).toBe(pieces.join(''));
          expect(text.bytes().equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
          expect(text.byteLength()).toBe(Buffer.byteLength(pieces.join(''), 'utf8'));
          expect(text.parts().join('')).toBe(pieces.join(''));
        },
      ),
    );
  });

  it('encodes a page-sized text of many pieces exactly, and no pieces as nothing', () => {
    const item = '{"title":"é 中 😀 \\u2028","n":1}';
    const pieces = [
      '{"data":[',
      ...Array.from({ length: 8 }, () => Array(128).fill(item).join(',')),
      ']}',
    ];
    const text = new JsonText(...pieces);
    expect(text.bytes().equals(Buffer.from(pieces.join('')))).toBe(true);
    expect(new JsonText().bytes()).toHaveLength(0);
    expect(new JsonText('[', ']').value()).toEqual([]);
  });
});
