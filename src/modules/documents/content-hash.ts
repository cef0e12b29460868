import { canonicalJson, hashOfCanonical } from '../../common/http/canonical-json.js';

export { canonicalJson, hashOfCanonical };

/**
 * Lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of `content`: the same content hashes
 * the same whatever its key order or number spelling, so the hash works as a strong ETag.
 */
export function contentHash(content: unknown): string {
  return hashOfCanonical(canonicalJson(content));
}
