import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';
import type { FreeJsonValue } from '../../../../common/http/prepared-json.js';
import { FreeJson } from '../../../../common/http/validation.js';
import {
  DOCUMENT_TITLE_MAX,
  FILE_NAME_MAX,
  MaxChars,
  MEDIA_TYPE_MAX,
  MEDIA_TYPE_PATTERN,
  PROJECT_DESCRIPTION_MAX,
  PROJECT_NAME_MAX,
  RequiredText,
  SHA256_PATTERN,
  STORAGE_PATH_MAX,
  TextOf,
} from './content-limits.js';

const PROJECT_STATUSES = ['active', 'archived'] as const;

const CONTENT_RULES =
  "A JSON object, stored as sent (its hash, `content_hash`, is the lowercase hex SHA-256 of its RFC 8785 canonical JSON), under the same rules as the integration API's staged content: no key `__proto__`, no U+0000 or lone surrogate, numbers within a double, at most 100,000 values (`CONTENT_MAX_NODES`) and 64 levels (`CONTENT_MAX_DEPTH`).";

export class PutPlatformProjectRequest {
  @RequiredText(PROJECT_NAME_MAX, 'ISO 27001')
  name!: string;

  @ApiPropertyOptional({
    maxLength: PROJECT_DESCRIPTION_MAX,
    example: 'Certification project 2026',
    description: `At most ${PROJECT_DESCRIPTION_MAX} characters. Absent: \`''\` when created, unchanged when updated.`,
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxChars(PROJECT_DESCRIPTION_MAX)
  description?: string;

  @ApiPropertyOptional({
    enum: PROJECT_STATUSES,
    example: 'active',
    description: 'Absent: `active` when created, unchanged when updated.',
  })
  @IsOptional()
  @IsIn(PROJECT_STATUSES, { message: 'must be active or archived' })
  status?: (typeof PROJECT_STATUSES)[number];
}

export class PutPlatformDocumentRequest {
  @RequiredText(DOCUMENT_TITLE_MAX, 'Access policy')
  title!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { title: 'Access policy', sections: [] },
    description: `The first version's content (source \`platform\`): required when the document is created (else 400 \`validation_failed\`), ignored when it exists (new versions: POST /documents/{documentId}/versions). ${CONTENT_RULES}`,
  })
  @IsOptional()
  @IsObject({ message: 'must be a JSON object' })
  @FreeJson()
  content?: FreeJsonValue<Record<string, unknown>>;
}

export class CreatePlatformVersionRequest {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { title: 'Access policy', sections: [{ heading: 'Scope', body: 'All staff.' }] },
    description: `The new version's content. ${CONTENT_RULES}`,
  })
  @IsDefined({ message: 'is required' })
  @IsObject({ message: 'must be a JSON object' })
  @FreeJson()
  content!: FreeJsonValue<Record<string, unknown>>;
}

export class PutPlatformFileRequest {
  @RequiredText(FILE_NAME_MAX, 'audit.pdf')
  name!: string;

  @ApiProperty({
    minLength: 3,
    maxLength: MEDIA_TYPE_MAX,
    pattern: MEDIA_TYPE_PATTERN.source,
    example: 'application/pdf',
    description: '`type/subtype`, at most 255 characters.',
  })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @MaxChars(MEDIA_TYPE_MAX)
  @Matches(MEDIA_TYPE_PATTERN, { message: 'must look like type/subtype' })
  media_type!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 482113,
  })
  @IsDefined({ message: 'is required' })
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}` })
  @Max(Number.MAX_SAFE_INTEGER, {
    message: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`,
  })
  size_bytes!: number;

  @ApiPropertyOptional({
    pattern: SHA256_PATTERN.source,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description:
      'SHA-256 of the bytes, 64 hex digits (stored lowercase). Absent: null (the metadata is replaced as a whole).',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Matches(SHA256_PATTERN, { message: 'must be 64 hexadecimal digits' })
  sha256?: string;

  @ApiProperty({
    minLength: 1,
    maxLength: STORAGE_PATH_MAX,
    example: 's3://grc-files/tenant-7/audit.pdf',
    writeOnly: true,
    description: `Where the bytes live (bucket, key, path, URL), 1 to ${STORAGE_PATH_MAX} characters. Stored, never answered, listed or logged.`,
  })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @TextOf(STORAGE_PATH_MAX)
  storage_path!: string;
}
