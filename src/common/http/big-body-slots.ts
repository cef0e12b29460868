/**
 * A body that may decode to more than this is "big": reading, parsing, validating and hashing it
 * takes tens of milliseconds of the event loop per step (bench/README.md, "Big bodies").
 */
export const BIG_BODY_BYTES = 256 * 1024;
/** What a compressed body may expand to (body-decoding.ts bounds it by the same ratio). */
const COMPRESSED_EXPANSION = 50;

/**
 * Whether a request's body is big, from its headers alone: a chunked body's size is unknown, so
 * it counts as big; a compressed one counts at what it may expand to.
 */
export function isBigBody(headers: {
  'content-length'?: string;
  'content-encoding'?: string;
  'transfer-encoding'?: string;
}): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = Number(headers['content-length'] ?? 0);
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  return length * (encoding === 'identity' ? 1 : COMPRESSED_EXPANSION) > BIG_BODY_BYTES;
}

/**
 * One big body at a time per process, from reading it to its response: the long synchronous
 * steps of several big bodies would otherwise run back to back and hold every other request
 * (an authenticated probe waited 4-6 s behind 20 stagings of 5 MiB). In turn, the steps of the
 * one big body in progress interleave with small requests, which are never held. FIFO.
 */
export class BigBodySlots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly slots = 1) {}

  /** Resolves with the release function once a slot is free. */
  async acquire(): Promise<() => void> {
    if (this.busy >= this.slots) await new Promise<void>((ok) => this.waiting.push(ok));
    else this.busy += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // the slot passes straight to the next in line, so `busy` stays counted
      if (next) next();
      else this.busy -= 1;
    };
  }
}
