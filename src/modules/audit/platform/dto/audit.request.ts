import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalIdQuery } from '../../../../common/http/params.js';
import { MAX_CURSOR_LENGTH } from '../../../../common/pagination/cursor.js';
import { PageLimit } from '../../../../common/pagination/page-query.js';

/** A date, or a date-time with its zone (a time without one would be read in the server's zone). */
export const BOUND = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;

const DATE_TIME =
  'RFC 3339 date-time with its zone (`2026-11-22T10:00:00Z`), or a date (`2026-11-22`, midnight UTC).';

/** The query of `GET /audit`. */
export class AuditListQuery {
  @OptionalIdQuery(
    "Only this tenant's lines (404 `not_found` when there is no such tenant). Without it: " +
      "every tenant's lines and those of no tenant (refused token requests).",
  )
  tenantId?: number;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 100,
    example: 'revision.accept',
    description: 'Only lines of this action (exact match).',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({
    pattern: BOUND.source,
    example: '2026-11-22T00:00:00Z',
    description: `Only lines created at or after this time. ${DATE_TIME}`,
  })
  @IsOptional()
  @Matches(BOUND, { message: 'since must be a date or a date-time with its zone' })
  since?: string;

  @ApiPropertyOptional({
    pattern: BOUND.source,
    example: '2026-11-23T00:00:00Z',
    description: `Only lines created before this time. ${DATE_TIME}`,
  })
  @IsOptional()
  @Matches(BOUND, { message: 'until must be a date or a date-time with its zone' })
  until?: string;

  @PageLimit(100, 'Lines per page (never clamped: outside 1..1000 is 400).')
  limit: number = 100;

  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_CURSOR_LENGTH,
    description:
      'The `next_cursor` of the previous page, with the same filters (anything else is 400 ' +
      '`validation_failed`). Omit for the first page.',
  })
  @IsOptional()
  @IsString()
  cursor?: string;
}
