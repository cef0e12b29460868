import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { OptionalIdQuery } from '../../../../common/http/params.js';
import { MAX_CURSOR_LENGTH } from '../../../../common/pagination/cursor.js';
import { PageLimit } from '../../../../common/pagination/page-query.js';
import { CATALOG_EVENT_TYPES, type CatalogEventType } from '../../event-catalog.js';

/** `types=a,b`, `types=a&types=b` or both: one list. */
const toTypes = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value.split(',')
    : Array.isArray(value)
      ? (value as unknown[]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]))
      : value;

/** The query of `GET /events`, as a list and as a stream. */
export class EventFeedQuery {
  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_CURSOR_LENGTH,
    description:
      'Resume after this event: a `next_cursor` of this feed, or the `id:` of a streamed event ' +
      '(the same cursors; any filter may be used with them). Omit to start from the oldest ' +
      'event kept (a list) or from now (a stream). Anything else is 400 `validation_failed`.',
  })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({
    enum: CATALOG_EVENT_TYPES,
    isArray: true,
    minItems: 1,
    maxItems: CATALOG_EVENT_TYPES.length,
    description:
      'Only events of these types: comma-separated (`types=document.checked_out,document.checked_in`) ' +
      'or the parameter repeated.',
  })
  @IsOptional()
  @Transform(toTypes)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(CATALOG_EVENT_TYPES.length)
  @IsIn(CATALOG_EVENT_TYPES, {
    each: true,
    message: `each value in types must be one of: ${CATALOG_EVENT_TYPES.join(', ')}`,
  })
  types?: CatalogEventType[];

  @OptionalIdQuery("Only this tenant's events (404 `not_found` when there is no such tenant).")
  tenantId?: number;

  @PageLimit(100, 'Events per page of the list (never clamped: outside 1..1000 is 400).')
  limit: number = 100;
}
