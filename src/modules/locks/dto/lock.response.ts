import { ApiProperty, ApiSchema } from '@nestjs/swagger';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

@ApiSchema({ name: 'CheckoutResponseDto' })
export class CheckoutResponse {
  @ApiProperty({ example: 42 })
  documentId!: number;

  @ApiProperty({
    description:
      'One-time lock token, returned only here and stored only as a digest. Send it as the ' +
      '`Lock-Token` header when staging a revision and as `lock_token` to check the document in.',
    example: 'glk_WRcIdf92rptTTEfRHNAuXxsEWsbRrhPiHLrNVKftQT44XHJpP',
  })
  lock_token!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:30:00.000Z' })
  expires_at!: string;
}

@ApiSchema({ name: 'CheckinResponseDto' })
export class CheckinResponse {
  @ApiProperty({ example: 42 })
  documentId!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:12:03.517Z' })
  released_at!: string;
}
