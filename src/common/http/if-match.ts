import { ValidationFailedError } from './app-error.js';

/** `*` matches whatever is current; otherwise the listed content hashes (lowercase hex). */
export type IfMatch = { any: true } | { any: false; hashes: string[] };

const HASH = /^[0-9a-fA-F]{64}$/;

/**
 * Parses `If-Match` (RFC 9110 §13.1.1) against a document's content hashes. Content hashes are
 * strong validators, so a weak tag (`W/"…"`) can never match and is refused as invalid rather than
 * answered as a conflict. Quoted and bare hashes are both accepted (bare is what most callers copy
 * from a body). One rule for every route that takes it (staging, the platform's new versions).
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const invalid = (message: string) => new ValidationFailedError([{ field: 'If-Match', message }]);
  const trimmed = header.trim();
  if (trimmed === '*') return { any: true };
  const tags = trimmed.split(',').map((t) => t.trim());
  const hashes: string[] = [];
  for (const tag of tags) {
    if (/^W\//i.test(tag)) {
      throw invalid('weak entity tags (W/"…") are not allowed; send the strong content hash');
    }
    const value =
      tag.startsWith('"') && tag.endsWith('"') && tag.length >= 2 ? tag.slice(1, -1) : tag;
    if (!HASH.test(value)) {
      throw invalid('must be the content hash of the current version, quoted or bare, or *');
    }
    hashes.push(value.toLowerCase());
  }
  return { any: false, hashes };
}

export function ifMatchSatisfied(ifMatch: IfMatch, currentHash: string): boolean {
  return ifMatch.any || ifMatch.hashes.includes(currentHash);
}
