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
