import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { type FieldError, ValidationFailedError } from '../../common/http/app-error.js';
import { walkJson } from '../../common/http/json-walk.js';
import { keyTextProblem, textProblem } from '../../common/http/text.js';
import { canonicalJson, hashOfCanonical } from '../documents/content-hash.js';
import type { StageRevisionRequest } from './dto/stage-revision.request.js';
import type { IfMatch } from './staging-headers.js';

/** The headers of a staging request that change what it does. */
export interface StagingHeaders {
  ifMatch?: string;
  lockToken?: string;
  idempotencyKey?: string;
}

/**
 * The content as canonical JSON (sent as the `jsonb` parameter: one serialisation serves both)
 * and its hash, refusing content PostgreSQL or JSON cannot store faithfully as a 400 naming the
 * path instead of a 500: U+0000 or a lone surrogate in a string or key (also refused by the
 * validation pipe), a number beyond double range that JSON.parse turned into Infinity.
 */
export function storableContent(content: Record<string, unknown>): { json: string; hash: string } {
  const problem = contentProblem(content);
  if (problem) throw new ValidationFailedError([problem]);
  const json = canonicalJson(content);
  return { json, hash: hashOfCanonical(json) };
}

/** A string or key `textProblem` refuses, or a number JSON.parse turned into Infinity. */
function contentProblem(content: unknown): FieldError | null {
  return walkJson(content, 'content', {
    leaf: (value) => {
      if (typeof value === 'string') return textProblem(value);
      if (typeof value === 'number' && !Number.isFinite(value)) {
        return 'must be a finite number within the range of a double';
      }
      return null;
    },
    key: keyTextProblem,
  });
}

/**
 * What makes two requests with one Idempotency-Key "the same": the canonical JSON of the body
 * (an absent optional field equals null) plus the normalised If-Match and whether a Lock-Token
 * was sent (not its value: a retry after renewing a lock is still the same request).
 */
export function requestHash(
  dto: StageRevisionRequest,
  ifMatch: IfMatch | undefined,
  h: StagingHeaders,
): string {
  const canonical = canonicalize({
    body: {
      content: dto.content,
      base_version_id: dto.base_version_id ?? null,
      html: dto.html ?? null,
      source_reference: dto.source_reference ?? null,
    },
    if_match: ifMatch ? (ifMatch.any ? '*' : [...ifMatch.hashes].sort()) : null,
    lock_token: h.lockToken !== undefined,
  });
  return createHash('sha256')
    .update(canonical ?? '', 'utf8')
    .digest('hex');
}
