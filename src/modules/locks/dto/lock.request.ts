import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsString, Max, Min, ValidateIf } from 'class-validator';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

export const TTL_MINUTES_MIN = 5;
export const TTL_MINUTES_MAX = 240;
export const TTL_MINUTES_DEFAULT = 30;

@ApiSchema({ name: 'CheckoutRequestDto' })
export class CheckoutRequest {
  @ApiPropertyOptional({
    description: 'How long the lock lives, in whole minutes.',
    minimum: TTL_MINUTES_MIN,
    maximum: TTL_MINUTES_MAX,
    default: TTL_MINUTES_DEFAULT,
    example: 60,
    type: 'integer',
  })
  // absent means the default; an explicit null is a mistake, not a request for the default
  @ValidateIf((_, value) => value !== undefined)
  @IsInt()
  @Min(TTL_MINUTES_MIN)
  @Max(TTL_MINUTES_MAX)
  ttl_minutes?: number;
}

@ApiSchema({ name: 'CheckinRequestDto' })
export class CheckinRequest {
  @ApiProperty({
    description: 'The token returned by the checkout of the live lock.',
    example: 'glk_WRcIdf92rptTTEfRHNAuXxsEWsbRrhPiHLrNVKftQT44XHJpP',
  })
  @IsString()
  @IsNotEmpty()
  lock_token!: string;
}
