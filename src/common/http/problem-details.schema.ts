import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES } from './error-codes.js';

/** One entry of `errors`: which part of the request is wrong and why. */
export class ProblemFieldError {
  @ApiProperty({
    example: 'limit',
    description: 'Body field, query or path parameter, or header.',
  })
  field!: string;

  @ApiProperty({ example: 'limit must not be greater than 100' })
  message!: string;
}

/** The RFC 9457 body of every error of the API except those of the token endpoint. */
export class ProblemDetails {
  @ApiProperty({ example: 'urn:problem:validation_failed', description: '`urn:problem:<code>`.' })
  type!: string;

  @ApiProperty({ example: 'Validation failed' })
  title!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 400,
    maximum: 599,
    example: 400,
    description: 'The HTTP status, repeated.',
  })
  status!: number;

  @ApiProperty({ example: 'limit: limit must not be greater than 100' })
  detail!: string;

  @ApiProperty({
    example: 'validation_failed',
    description: `Stable machine-readable code: ${Object.keys(ERROR_CODES)
      .map((code) => `\`${code}\``)
      .join(', ')}.`,
  })
  code!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '6f1c2b9e-3d4a-4f5b-8c7d-9e0f1a2b3c4d',
    description: 'The `X-Request-Id` of the request; quote it when asking for support.',
  })
  request_id!: string | null;

  @ApiPropertyOptional({
    type: [ProblemFieldError],
    description: 'Present, non-empty, with `validation_failed` and with no other code.',
  })
  errors?: ProblemFieldError[];

  @ApiPropertyOptional({
    example: 'documents:read',
    description: 'With `insufficient_scope` only: the scope the operation needs.',
  })
  scope?: string;

  @ApiPropertyOptional({
    example: 'api.webhooks',
    description: "With `entitlement_required` only: the entitlement the tenant's plan lacks.",
  })
  entitlement?: string;

  @ApiPropertyOptional({
    type: 'integer',
    example: 41,
    description: 'With `version_conflict` only: the base the request was staged against.',
  })
  base_version_id?: number;

  @ApiPropertyOptional({
    type: 'integer',
    example: 42,
    description: "With `version_conflict` only: the document's current version.",
  })
  current_version_id?: number;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-22T10:30:00.000Z',
    description: 'With `document_locked` only: when the live lock expires (never its token).',
  })
  expires_at?: string;
}
