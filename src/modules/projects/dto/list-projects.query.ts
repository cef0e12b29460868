import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { MAX_OFFSET, toInteger } from '../../../common/http/params.js';

const OFFSET_RANGE = `must be an integer from 0 to ${MAX_OFFSET}`;
import { CursorQuery } from '../../../common/pagination/page-query.js';

/**
 * The documented `limit` and `offset`, and a `cursor` for deep walks (the `page.next_cursor` of the
 * previous page; offset must then be 0 or absent).
 */
export class ListProjectsQuery extends CursorQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, example: 50 })
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 50;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0, example: 0 })
  @Transform(toInteger)
  @IsInt({ message: OFFSET_RANGE })
  @Min(0, { message: OFFSET_RANGE })
  @Max(MAX_OFFSET, { message: OFFSET_RANGE })
  offset: number = 0;
}
