import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type Held, HeldText, holdColumns, JsonText } from './json-text.js';

/** The bytes a platform sends: each part written as UTF-8, one after the other. */
const sent = (text: JsonText): Buffer =>
  Buffer.concat(text.parts().map((part) => Buffer.from(part, 'utf8')));

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
          expect(sent(text).equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
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
    expect(sent(text).equals(Buffer.from(pieces.join('')))).toBe(true);
    expect(text.byteLength()).toBe(sent(text).length);
    expect(sent(new JsonText())).toHaveLength(0);
    expect(new JsonText().byteLength()).toBe(0);
    expect(new JsonText('[', ']').value()).toEqual([]);
  });

  it('writes held pieces as their texts, and lets every held text go on release', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ text: fc.string({ unit: 'grapheme', maxLength: 200 }), held: fc.boolean() }),
          {
            maxLength: 12,
          },
        ),
        (specs) => {
          const whole = specs.map((p) => p.text).join('');
          const held = specs.map((p) => (p.held ? new HeldText(p.text) : p.text));
          const body = new JsonText(...held);
          expect(body.text).toBe(whole);
          expect(body.parts().join('')).toBe(whole);
          expect(sent(body).equals(Buffer.from(whole, 'utf8'))).toBe(true);
          expect(body.byteLength()).toBe(Buffer.byteLength(whole, 'utf8'));
          body.release();
          const anyHeld = specs.some((p) => p.held);
          // released, a held piece refuses to be read rather than send a shorter body
          if (anyHeld) expect(() => body.parts()).toThrow(/released/);
          else expect(body.text).toBe(whole);
          for (const piece of held)
            if (piece instanceof HeldText) expect(() => piece.text).toThrow();
        },
      ),
    );
  });
});

describe('holdColumns', () => {
  it('holds the named text columns in place, leaves the rest, and types the rows as held', () => {
    type Row = { doc: string; note: string | null; n: number };
    const rows: Row[] = [
      { doc: 'a', note: 'b', n: 1 },
      { doc: 'c', note: null, n: 2 },
    ];
    const hold = holdColumns(['doc', 'note'] as const);
    hold(rows);
    const held = rows as unknown as Held<Row, (typeof hold.columns)[number]>[];
    expect(held.map((r) => [r.doc.text, r.note?.text ?? null, r.n])).toEqual([
      ['a', 'b', 1],
      ['c', null, 2],
    ]);
    expect(held[0]!.doc).toBeInstanceOf(HeldText);
    // @ts-expect-error a held column is no longer a string
    const asText: string = held[0]!.doc;
    // @ts-expect-error a column that was not held keeps its type
    const asHeld: HeldText = held[0]!.n;
    expect([typeof asText, typeof asHeld]).toEqual(['object', 'number']);
  });
});
