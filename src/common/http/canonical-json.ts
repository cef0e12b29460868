import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The RFC 8785 (JCS) canonical JSON of `value`; throws for what JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const canonical = canonicalize(value);
  if (canonical === undefined) throw new TypeError('content is not representable as JSON');
  return canonical;
}

/** Lowercase hex SHA-256 of `canonical` as UTF-8: a content hash, given canonical JSON. */
export function hashOfCanonical(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * Canonical JSON as a `jsonb` parameter: its text, or PostgreSQL's binary form of `jsonb` (a
 * version byte, 1, then the text as UTF-8), which the pg driver sends as a binary parameter as
 * it is. A big body's content comes as the binary form from the JSON worker, so the event loop
 * never holds its text (bench/README.md, "Memory under big bodies").
 */
export type JsonbParam = string | Buffer;

/** The binary `jsonb` form of `canonical`, in memory of its own (transferable to a thread). */
export function jsonbBytes(canonical: string): Buffer {
  const bytes = Buffer.from(new ArrayBuffer(1 + Buffer.byteLength(canonical, 'utf8')));
  bytes[0] = 1;
  bytes.write(canonical, 1, 'utf8');
  return bytes;
}

/** The canonical JSON a `jsonb` parameter holds, as text or as its UTF-8 bytes. */
export function canonicalOf(param: JsonbParam): string | Buffer {
  return typeof param === 'string' ? param : param.subarray(1);
}

/** A `jsonb` parameter as text (where a statement takes an array of them). */
export function jsonbText(param: JsonbParam): string {
  return typeof param === 'string' ? param : param.toString('utf8', 1);
}
