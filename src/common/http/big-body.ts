/**
 * A body that may decode to more than this is "big": reading, parsing, validating and hashing it
 * takes tens of milliseconds of the event loop per step (bench/README.md, "Big bodies").
 */
export const BIG_BODY_BYTES = 256 * 1024;
/** What a compressed body may expand to (body-decoding.ts bounds it by the same ratio). */
const COMPRESSED_EXPANSION = 50;

/** Whether a body of `length` bytes as received is big; a compressed one at what it may expand to. */
export function isBigBody(length: number, contentEncoding: string | undefined): boolean {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  return length * (encoding === 'identity' ? 1 : COMPRESSED_EXPANSION) > BIG_BODY_BYTES;
}
