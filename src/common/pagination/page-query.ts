import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { stacked } from '../decorators/stacked.js';
import { toInteger } from '../http/params.js';
import { MAX_CURSOR_LENGTH } from './cursor.js';

/** Largest page of the cursor-paged lists (docs/integrators/paging.md). */
export const MAX_PAGE_LIMIT = 1000;

/**
 * `limit` of a cursor-paged list: an integer 1..MAX_PAGE_LIMIT, never clamped (anything else is
 * 400), with the list's default and description.
 */
export function PageLimit(defaultLimit: number, description: string): PropertyDecorator {
  return stacked(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: defaultLimit,
      example: 100,
      description,
    }),
    Transform(toInteger),
    IsInt(),
    Min(1),
    Max(MAX_PAGE_LIMIT),
  );
}

export const CURSOR_DESCRIPTION =
  'Opaque: the `next_cursor` of the previous page of this same list, passed back unchanged. ' +
  'Valid only for the tenant and the list that answered it; anything else (edited, of another ' +
  'list or another tenant) is 400 `validation_failed`. Omit for the first page.';

/** `cursor`: declared once, for every list that pages by cursor. */
export class CursorQuery {
  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_CURSOR_LENGTH,
    // no example: Swagger UI would fill it in, and a cursor of another list is a 400
    description: CURSOR_DESCRIPTION,
  })
  @IsOptional()
  @IsString()
  // its length is checked by Cursor.decode, which answers every bad cursor alike
  cursor?: string;
}

/** `limit` (1..1000, default 1000) and `cursor`: the query of every cursor-paged list. */
export class CursorPageQuery extends CursorQuery {
  @PageLimit(
    MAX_PAGE_LIMIT,
    'Items per page (never clamped: outside 1..1000 is 400). The default, 1000, answers a list ' +
      'of up to 1,000 items whole, in one page.',
  )
  limit: number = MAX_PAGE_LIMIT;
}

/** The platform API's default page size (its lists are of tenants and credentials, not pages). */
export const PLATFORM_PAGE_DEFAULT = 100;

/** `limit` (1..1000, default 100) and `cursor`: the query of the platform API's lists. */
export class PlatformPageQuery extends CursorQuery {
  @PageLimit(PLATFORM_PAGE_DEFAULT, 'Items per page (never clamped: outside 1..1000 is 400).')
  limit: number = PLATFORM_PAGE_DEFAULT;
}
