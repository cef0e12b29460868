import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ndjsonLines, type RawLine } from './ndjson-lines.js';

async function split(chunks: Buffer[], max: number): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const line of ndjsonLines(chunks, max)) out.push(line);
  return out;
}

/** `bytes` cut at the given offsets. */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  return chunks;
}

describe('ndjsonLines', () => {
  it('answers the lines of the text, numbered from 1, however the stream is cut', async () => {
    const lineText = fc
      .string({ unit: 'grapheme', maxLength: 30 })
      .map((s) => s.replace(/\n/g, ''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineText, { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (lines, trailingNewline, offsets) => {
          const text = lines.join('\n') + (trailingNewline && lines.length ? '\n' : '');
          const got = await split(cut(Buffer.from(text, 'utf8'), offsets), 1000);
          // what follows the last newline is a line only when it holds something
          const expected = text.split('\n');
          if (expected.at(-1) === '') expected.pop();
          expect(got.map((l) => l.number)).toEqual(expected.map((_, i) => i + 1));
          expect(got.map((l) => l.bytes?.toString('utf8'))).toEqual(expected);
        },
      ),
    );
  });

  it('drops a line over the limit as it streams by, and goes on with the next', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 10 }), async (offsets) => {
        const text = `short\n${'x'.repeat(50)}\nafter\n${'y'.repeat(11)}`;
        const got = await split(cut(Buffer.from(text), offsets), 10);
        expect(got).toEqual([
          { number: 1, bytes: Buffer.from('short') },
          { number: 2, bytes: null },
          { number: 3, bytes: Buffer.from('after') },
          { number: 4, bytes: null },
        ]);
      }),
    );
  });
});
