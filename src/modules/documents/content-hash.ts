import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The RFC 8785 (JCS) canonical JSON of `content`; throws for what JSON cannot represent. */
export function canonicalJson(content: unknown): string {
  const canonical = canonicalize(content);
  if (canonical === undefined) throw new TypeError('content is not representable as JSON');
  return canonical;
}

/** The content hash of content whose canonical JSON is `canonical`. */
export function hashOfCanonical(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * Lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of `content`: the same content hashes
 * the same whatever its key order or number spelling, so the hash works as a strong ETag.
 */
export function contentHash(content: unknown): string {
  return hashOfCanonical(canonicalJson(content));
}
