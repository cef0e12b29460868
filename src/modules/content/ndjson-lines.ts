const NEWLINE = 0x0a;

/** A line of an NDJSON body as read: its number (from 1) and bytes; null bytes: over the limit. */
export interface RawLine {
  readonly number: number;
  readonly bytes: Buffer | null;
}

/**
 * Splits a byte stream into lines as it arrives, without ever holding more than one line (at most
 * `maxLineBytes`) and the chunk in hand: a line past the limit is dropped as it streams by and
 * answered with `bytes: null`. Lines end at LF (a CR before it is the line's, trimmed by the
 * parser); the last line needs no LF. Reading is pulled by the consumer (`for await`), so a slow
 * consumer holds the stream back instead of buffering it.
 */
export async function* ndjsonLines(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  maxLineBytes: number,
): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let number = 0;
  const take = (): RawLine => {
    number++;
    const bytes = skipping ? null : pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    skipping = false;
    return { number, bytes };
  };
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start <= buf.length) {
      const end = buf.indexOf(NEWLINE, start);
      const piece = buf.subarray(start, end < 0 ? buf.length : end);
      if (!skipping && piece.length > 0) {
        pendingBytes += piece.length;
        if (pendingBytes > maxLineBytes) {
          skipping = true;
          pending = [];
        } else {
          // a copy: the chunk's memory is not kept alive by a small piece of it
          pending.push(end < 0 ? Buffer.from(piece) : piece);
        }
      }
      if (end < 0) break;
      yield take();
      start = end + 1;
    }
  }
  if (pendingBytes > 0 || skipping) yield take();
}
