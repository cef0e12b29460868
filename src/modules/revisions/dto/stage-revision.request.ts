import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { FreeJson } from '../../../common/http/validation.js';
import type { FreeJsonValue } from '../../../common/http/prepared-json.js';
import {
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

/** 1 MiB of UTF-8: the preview is measured in bytes, as it is stored and sent. */
export const HTML_MAX_BYTES = 1_048_576;
/** Characters are Unicode code points, as PostgreSQL's `length()` counts them. */
export const SOURCE_REFERENCE_MAX_CHARS = 500;

function MaxUtf8Bytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxUtf8Bytes',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= max,
        defaultMessage: () => `must be at most ${max} bytes of UTF-8`,
      },
    },
    options,
  );
}

function MaxCodePoints(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCodePoints',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
        defaultMessage: () => `must be at most ${max} characters`,
      },
    },
    options,
  );
}

/** PostgreSQL text and jsonb cannot hold U+0000: refused up front instead of failing as a 500. */
function NoNulCharacter(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'noNulCharacter',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !value.includes('\u0000'),
        defaultMessage: () => 'must not contain the NUL character (U+0000)',
      },
    },
    options,
  );
}

@ApiSchema({ name: 'StageRevisionDto' })
export class StageRevisionRequest {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Structured document content of the platform: a JSON object (not an array, string or null), stored and returned exactly as sent, every key kept (`constructor`, `toString` and the like included; a key named `__proto__` itself, at any depth, is refused with 400 `validation_failed`). Its hash (`content_hash`) is the lowercase hex SHA-256 of its RFC 8785 canonical JSON. No string or key in it may contain U+0000 (PostgreSQL cannot store it) or a lone surrogate (`\\ud800` without its pair: not Unicode text), and numbers must fit a double: else 400 `validation_failed` naming the path, e.g. `content.sections[0].body`. At most 100,000 values in all (`CONTENT_MAX_NODES`: every object, array, string, number, boolean and null counts, the content object itself included; keys do not) and 64 levels of objects and arrays (`CONTENT_MAX_DEPTH`; the content object is level 1), counted before the body is parsed: past either, 400 `validation_failed` naming the limit.',
    example: { title: 'Access policy', sections: [{ heading: 'Scope', body: 'All staff.' }] },
  })
  @IsDefined({ message: 'is required' })
  @IsObject({ message: 'must be a JSON object' })
  @FreeJson()
  content!: FreeJsonValue<Record<string, unknown>>;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description:
      'Version the proposal is based on; defaults to the current version. Must be a version of this document (else 400 `validation_failed`) and the current one (else 400 `version_conflict`).',
    example: 41,
  })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be a positive integer' })
  @Max(2_147_483_647, { message: 'must be at most 2147483647' })
  base_version_id?: number;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: HTML_MAX_BYTES,
    description:
      'Preview only, stored as given and never rendered by this service. At most 1 MiB (1,048,576 bytes of UTF-8, exactly that allowed).',
    example: '<h1>Access policy</h1><p>All staff.</p>',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxUtf8Bytes(HTML_MAX_BYTES)
  @NoNulCharacter()
  html?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: SOURCE_REFERENCE_MAX_CHARS,
    description:
      'Reference of the proposal in the calling system (ticket, commit, DMS id). At most 500 characters (Unicode code points).',
    example: 'DMS-2024-0042',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxCodePoints(SOURCE_REFERENCE_MAX_CHARS)
  @NoNulCharacter()
  source_reference?: string;
}
