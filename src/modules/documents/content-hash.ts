import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * Lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of `content`: the same content hashes
 * the same whatever its key order or number spelling, so the hash works as a strong ETag.
 */
export function contentHash(content: unknown): string {
  const canonical = canonicalize(content);
  if (canonical === undefined) throw new TypeError('content is not representable as JSON');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
