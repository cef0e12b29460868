import type { HeaderObject } from '@nestjs/swagger';

/** The `ETag` of an answer about a version: its content hash, quoted (an RFC 9110 strong tag). */
export const ETAG_HEADER: Record<'ETag', HeaderObject> = {
  ETag: {
    description: '`"<content_hash>"`: send it in `If-Match` or `If-None-Match`.',
    required: true,
    schema: { type: 'string', pattern: '^"[0-9a-f]{64}"$' },
  },
};
