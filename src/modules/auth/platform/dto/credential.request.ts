import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { SCOPES, type Scope } from '../../../../common/access/scopes.js';
import { MAX_BODY_MEMBERS } from '../../../../common/http/body-bounds.js';
import { PAT_DEFAULT_DAYS, PAT_MAX_DAYS } from '../../credential-admin.service.js';

/** Present means validated: null is refused like any other wrong type. */
const IfPresent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/** The longest text of a CIDR (IPv6 with an embedded IPv4 and a prefix), with room to spare. */
const CIDR_MAX_LENGTH = 64;

/** What a client and a PAT are both made of (the CLI's `--name`, `--scopes`, `--allow-ip`). */
abstract class CredentialRequest {
  @ApiProperty({
    example: 'erp',
    minLength: 1,
    maxLength: 200,
    description: "A name for the tenant's administrators; surrounding white space is trimmed.",
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({
    enum: SCOPES,
    isArray: true,
    minItems: 1,
    maxItems: SCOPES.length,
    uniqueItems: true,
    example: ['projects:read', 'documents:read'],
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SCOPES.length)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes!: Scope[];

  @ApiPropertyOptional({
    type: String,
    isArray: true,
    maxItems: MAX_BODY_MEMBERS,
    example: ['10.0.0.0/8', '2001:db8::/32'],
    description:
      'IPv4 or IPv6 CIDRs the credential may be used from (stored as network addresses; ' +
      'duplicates once). Empty or absent: any address. Needs the `auth.ip_allowlist` ' +
      'entitlement (403 `entitlement_required` without it).',
  })
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(MAX_BODY_MEMBERS)
  @IsString({ each: true })
  @MaxLength(CIDR_MAX_LENGTH, { each: true })
  allowed_ips?: string[];
}

@ApiSchema({ name: 'CreateClientDto' })
export class CreateClientRequest extends CredentialRequest {}

@ApiSchema({ name: 'CreatePatDto' })
export class CreatePatRequest extends CredentialRequest {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: PAT_MAX_DAYS,
    default: PAT_DEFAULT_DAYS,
    example: 30,
    description: 'Days until the token expires.',
  })
  @IfPresent()
  @IsInt()
  @Min(1)
  @Max(PAT_MAX_DAYS)
  expires_in_days?: number;
}

@ApiSchema({ name: 'RotateClientSecretDto' })
export class RotateClientSecretRequest {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    example: false,
    description:
      "`true`: the client's access tokens are revoked in the same transaction (refused at once). " +
      '`false` (default): tokens already issued stay valid until they expire.',
  })
  @IfPresent()
  @IsBoolean()
  revoke_tokens?: boolean;
}
