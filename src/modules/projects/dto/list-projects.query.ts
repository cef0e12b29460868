import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInteger } from '../../../common/http/params.js';

export class ListProjectsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, example: 50 })
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 50;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, example: 0 })
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  offset: number = 0;
}
