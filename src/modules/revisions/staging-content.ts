import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ValidationFailedError } from '../../common/http/app-error.js';
import {
  canonicalJson,
  canonicalOf,
  hashOfCanonical,
  type JsonbParam,
} from '../../common/http/canonical-json.js';
import {
  freeJsonProblem,
  type FreeJsonValue,
  PreparedJson,
} from '../../common/http/prepared-json.js';
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
 * validation pipe), a number beyond double range that JSON.parse turned into Infinity. A big
 * body's content arrives prepared (checked, canonicalised and hashed off the event loop).
 */
export function storableContent(content: FreeJsonValue<Record<string, unknown>>): {
  json: JsonbParam;
  hash: string;
} {
  if (content instanceof PreparedJson) {
    if (content.problem) throw new ValidationFailedError([content.problem]);
    return { json: content.jsonb, hash: content.hash };
  }
  const problem = freeJsonProblem(content, 'content');
  if (problem) throw new ValidationFailedError([problem]);
  const json = canonicalJson(content);
  return { json, hash: hashOfCanonical(json) };
}

/**
 * What makes two requests with one Idempotency-Key "the same": the canonical JSON of the body
 * (an absent optional field equals null) plus the normalised If-Match and whether a Lock-Token
 * was sent (not its value: a retry after renewing a lock is still the same request). The
 * content's canonical JSON (`contentJson`, from `storableContent`) is written in its place
 * rather than made again: RFC 8785 writes an object's members in the order of their names, so
 * the text is exactly the canonical JSON of the whole.
 */
export function requestHash(
  dto: StageRevisionRequest,
  contentJson: JsonbParam,
  ifMatch: IfMatch | undefined,
  h: StagingHeaders,
): string {
  const json = (value: unknown): string => canonicalize(value) ?? 'null';
  return createHash('sha256')
    .update(`{"body":{"base_version_id":${json(dto.base_version_id ?? null)},"content":`)
    .update(canonicalOf(contentJson))
    .update(`,"html":${json(dto.html ?? null)}`)
    .update(`,"source_reference":${json(dto.source_reference ?? null)}}`)
    .update(
      `,"if_match":${json(ifMatch ? (ifMatch.any ? '*' : [...ifMatch.hashes].sort()) : null)}`,
    )
    .update(`,"lock_token":${json(h.lockToken !== undefined)}}`)
    .digest('hex');
}
