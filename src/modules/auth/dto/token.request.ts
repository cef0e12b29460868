import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

/**
 * The token request as documented in OpenAPI. The endpoint parses the body itself (RFC 6749 asks
 * for unknown parameters to be ignored and for its own error bodies), so this class only describes.
 */
@ApiSchema({ name: 'TokenRequestDto' })
export class OAuthTokenRequest {
  @ApiProperty({ enum: ['client_credentials'], example: 'client_credentials' })
  grant_type!: string;

  @ApiPropertyOptional({
    description: 'Client id; omit it when the client authenticates with HTTP Basic.',
    example: 'gci_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM',
  })
  client_id?: string;

  @ApiPropertyOptional({
    description:
      'Client secret; omit it when the client authenticates with HTTP Basic (sending both is refused). Keep it in a secret store.',
    example: 'gcs_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM',
  })
  client_secret?: string;

  @ApiPropertyOptional({
    description: 'Lifetime of the token in seconds.',
    minimum: 300,
    maximum: 86400,
    default: 3600,
    example: 3600,
    type: 'integer',
  })
  ttl?: number;

  @ApiPropertyOptional({
    description:
      "Space-separated scopes narrowing the token to a subset of the client's scopes; default: all of them. Any scope the client lacks refuses the whole request.",
    example: 'projects:read documents:read',
  })
  scope?: string;
}
