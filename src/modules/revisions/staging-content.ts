import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { canonicalOf, type JsonbParam } from '../../common/http/canonical-json.js';
import type { StageRevisionRequest } from './dto/stage-revision.request.js';
import type { IfMatch } from './staging-headers.js';

/** The headers of a staging request that change what it does. */
export interface StagingHeaders {
  ifMatch?: string;
  lockToken?: string;
  idempotencyKey?: string;
}

// one rule for staged content and versions made by the platform
export { storableContent } from '../../common/http/storable-content.js';

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
