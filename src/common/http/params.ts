import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import type { TransformFnParams } from 'class-transformer';
import { ValidationFailedError } from './app-error.js';

export const MAX_ID = 2_147_483_647;

/**
 * The largest list offset: rows have 32-bit ids, so no list is longer. (`toInteger` converts up to
 * 15 digits; anything longer is refused with this bound, not with the lower one.)
 */
export const MAX_OFFSET = MAX_ID;

/** Path identifiers are positive 32-bit integers; anything else is a 400, never a 404 or 500. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: ArgumentMetadata): number {
    const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_ID) {
      throw new ValidationFailedError([
        { field: metadata.data ?? 'id', message: 'must be a positive integer' },
      ]);
    }
    return n;
  }
}

/**
 * For `@Transform` on query DTOs: a decimal integer string becomes a number, anything else is
 * left as it is so `@IsInt` refuses it (no silent `Number('') === 0`).
 */
export function toInteger({ value }: TransformFnParams): unknown {
  return typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}
