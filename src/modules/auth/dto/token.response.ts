import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { SCOPES } from '../../../common/access/scopes.js';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

@ApiSchema({ name: 'TokenResponseDto' })
export class OAuthTokenResponse {
  @ApiProperty({ example: 'gat_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM' })
  access_token!: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  token_type!: 'Bearer';

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Seconds until the token expires.',
    example: 3600,
  })
  expires_in!: number;

  @ApiProperty({
    description: `Space-separated scopes granted (of ${SCOPES.join(', ')}).`,
    example: 'projects:read documents:read',
  })
  scope!: string;
}

@ApiSchema({ name: 'OAuthErrorDto' })
export class OAuthErrorResponse {
  @ApiProperty({
    enum: [
      'invalid_request',
      'invalid_client',
      'unsupported_grant_type',
      'invalid_scope',
      'rate_limited',
      'server_error',
      'temporarily_unavailable',
    ],
    example: 'invalid_client',
    description: 'RFC 6749 §5.2 error code (`rate_limited` with 429, `server_error` with 500).',
  })
  error!: string;

  @ApiProperty({ example: 'client authentication failed' })
  error_description!: string;
}
