/** The strong entity tag of a version: its content hash, quoted (RFC 9110 §8.8.3). */
export function etagOf(contentHash: string): string {
  return `"${contentHash}"`;
}

/**
 * `If-None-Match` evaluation (RFC 9110 §13.1.2): `*`, or any listed tag equal to `etag` under the
 * weak comparison (a `W/` prefix is ignored on either side).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  if (value === '*') return true;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  const wanted = bare(etag);
  return value.split(',').some((tag) => bare(tag) === wanted);
}
