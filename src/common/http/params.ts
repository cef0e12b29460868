import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, type TransformFnParams } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { stacked } from '../decorators/stacked.js';
import { ValidationFailedError } from './app-error.js';

/** The largest id of a `serial` (int4) column. */
export const MAX_ID = 2_147_483_647;

/**
 * The largest id of a `bigserial` column the service takes (deliveries, audit lines): the largest
 * integer a JSON number carries exactly to a JavaScript client, 2^53 - 1.
 */
export const MAX_BIG_ID = Number.MAX_SAFE_INTEGER;

/**
 * The largest list offset: rows have 32-bit ids, so no list is longer. (`toInteger` converts up to
 * 15 digits; anything longer is refused with this bound, not with the lower one.)
 */
export const MAX_OFFSET = MAX_ID;

/** The OpenAPI schema of a path id a pipe takes: the document reads it from the pipe. */
export interface IdSchema {
  readonly type: 'integer';
  readonly format: 'int32' | 'int64';
  readonly minimum: 1;
  readonly maximum: number;
}

function idSchema(format: IdSchema['format'], maximum: number): IdSchema {
  return { type: 'integer', format, minimum: 1, maximum };
}

function parseId(value: string, metadata: ArgumentMetadata, max: number): number {
  // no more digits than the largest id has (longer is never one, and Number would round it)
  const n = /^\d+$/.test(value) && value.length <= String(max).length ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new ValidationFailedError([
      { field: metadata.data ?? 'id', message: 'must be a positive integer' },
    ]);
  }
  return n;
}

/** Path ids of `serial` rows are 1..2147483647; anything else is a 400, never a 404 or 500. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  static readonly schema = idSchema('int32', MAX_ID);

  transform(value: string, metadata: ArgumentMetadata): number {
    return parseId(value, metadata, MAX_ID);
  }
}

/**
 * Path ids of `bigserial` rows (deliveries) are 1..2^53-1: past 2^31 such an id must still be
 * fetched and replayed, and up to 2^53 - 1 a JSON number carries it exactly.
 */
@Injectable()
export class ParseBigIdPipe implements PipeTransform<string, number> {
  static readonly schema = idSchema('int64', MAX_BIG_ID);

  transform(value: string, metadata: ArgumentMetadata): number {
    return parseId(value, metadata, MAX_BIG_ID);
  }
}

/**
 * For `@Transform` on query DTOs: a decimal integer string becomes a number, anything else is
 * left as it is so `@IsInt` refuses it (no silent `Number('') === 0`).
 */
export function toInteger({ value }: TransformFnParams): unknown {
  return typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

/** An optional id in a query (`serial` rows): absent, or an integer 1..MAX_ID, else 400. */
export function OptionalIdQuery(description: string): PropertyDecorator {
  return stacked(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID, description }),
    IsOptional(),
    Transform(toInteger),
    IsInt(),
    Min(1),
    Max(MAX_ID),
  );
}
