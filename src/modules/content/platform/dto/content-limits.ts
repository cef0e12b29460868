import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, ValidateBy, type ValidationOptions } from 'class-validator';
import { stacked } from '../../../../common/decorators/stacked.js';

/** Bounds of the platform's content fields, in Unicode code points (as PostgreSQL counts). */
export const PROJECT_NAME_MAX = 200;
export const PROJECT_DESCRIPTION_MAX = 2000;
export const DOCUMENT_TITLE_MAX = 500;
export const FILE_NAME_MAX = 500;
export const MEDIA_TYPE_MAX = 255;
export const STORAGE_PATH_MAX = 2000;
/** `type/subtype`, as the CLI's `file add` takes it. */
export const MEDIA_TYPE_PATTERN = /^[\w.+-]+\/[\w.+-]+$/;
export const SHA256_PATTERN = /^[0-9a-fA-F]{64}$/;

/** 1 to `max` code points, not only white space. */
export function TextOf(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'textOf',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && value.trim() !== '' && [...value].length <= max,
        defaultMessage: () => `must be a string of 1 to ${max} characters, not only white space`,
      },
    },
    options,
  );
}

/** At most `max` code points (empty allowed). */
export function MaxChars(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxChars',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
        defaultMessage: () => `must be a string of at most ${max} characters`,
      },
    },
    options,
  );
}

/** A required name or title: a string of 1 to `max` code points, not only white space. */
export function RequiredText(max: number, example: string): PropertyDecorator {
  return stacked(
    ApiProperty({
      minLength: 1,
      maxLength: max,
      example,
      description: `1 to ${max} characters, not only white space.`,
    }),
    IsDefined({ message: 'is required' }),
    IsString({ message: 'must be a string' }),
    TextOf(max),
  );
}
