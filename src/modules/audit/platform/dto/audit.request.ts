import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { MAX_ID, toInteger } from '../../../../common/http/params.js';
import { MAX_CURSOR_LENGTH } from '../../../../common/pagination/cursor.js';
import { MAX_PAGE_LIMIT } from '../../../../common/pagination/page-query.js';

/** A date, or a date-time with its zone (a time without one would be read in the server's zone). */
export const BOUND = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;

const DATE_TIME =
  'RFC 3339 date-time with its zone (`2026-11-22T10:00:00Z`), or a date (`2026-11-22`, midnight UTC).';

/** The query of `GET /audit`. */
export class AuditListQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    description:
      "Only this tenant's lines (404 `not_found` when there is no such tenant). Without it: " +
      "every tenant's lines and those of no tenant (refused token requests).",
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
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

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    default: 100,
    example: 100,
    description: 'Lines per page (never clamped: outside 1..1000 is 400).',
  })
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_LIMIT)
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
