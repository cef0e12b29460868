import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_ID, toInteger } from '../../../../common/http/params.js';
import { CursorQuery, PageLimit } from '../../../../common/pagination/page-query.js';
import { REVISION_STATUSES, type RevisionStatus } from '../../revision-status.js';

/** Items per page of the review queue when `limit` is omitted. */
export const REVIEW_QUEUE_DEFAULT_LIMIT = 100;

/** `GET /revisions`: which candidates, and the page. */
export class ReviewQueueQuery extends CursorQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    description: "Only this tenant's candidates; every tenant's when omitted.",
    example: 3,
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  @Max(MAX_ID, { message: `must be at most ${MAX_ID}` })
  tenantId?: number;

  @ApiPropertyOptional({
    enum: REVISION_STATUSES,
    default: 'staged',
    description: 'Only candidates in this status (the queue proper: `staged`).',
  })
  @IsOptional()
  @IsIn(REVISION_STATUSES, { message: `must be one of ${REVISION_STATUSES.join(', ')}` })
  status: RevisionStatus = 'staged';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    description: "Only this document's candidates.",
    example: 7,
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  @Max(MAX_ID, { message: `must be at most ${MAX_ID}` })
  documentId?: number;

  @PageLimit(REVIEW_QUEUE_DEFAULT_LIMIT, 'Items per page (never clamped: outside 1..1000 is 400).')
  limit: number = REVIEW_QUEUE_DEFAULT_LIMIT;
}
