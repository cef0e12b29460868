import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsObject,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ENTITLEMENTS, type Entitlement } from '../../../../common/access/entitlements.js';
import { PLANS, type Plan } from '../../plans.js';
import { TENANT_NAME_MAX } from '../../tenancy.service.js';

/** Present means validated: null is refused like any other wrong type. */
const IfPresent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

const NAME_DESCRIPTION =
  'The tenant (company) name, 1..200 characters after surrounding white space is trimmed.';

@ApiSchema({ name: 'CreateTenantDto' })
export class CreateTenantRequest {
  @ApiProperty({
    example: 'Acme',
    minLength: 1,
    maxLength: TENANT_NAME_MAX,
    description: NAME_DESCRIPTION,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(TENANT_NAME_MAX)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({ enum: PLANS, example: 'professional' })
  @IsIn(PLANS)
  plan!: Plan;
}

const entitlementList = (description: string) =>
  ApiPropertyOptional({
    enum: ENTITLEMENTS,
    isArray: true,
    uniqueItems: true,
    maxItems: ENTITLEMENTS.length,
    description,
  });

/**
 * Entitlement changes of a PATCH. The lists have no order between them: an entitlement named in
 * two of them is refused (400), never resolved by a guess.
 */
@ApiSchema({ name: 'EntitlementChangesDto' })
export class EntitlementChangesRequest {
  @entitlementList('Granted beyond the plan (an override that stays when the plan changes).')
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(ENTITLEMENTS.length)
  @ArrayUnique()
  @IsIn(ENTITLEMENTS, { each: true })
  add?: Entitlement[];

  @entitlementList('Withheld although the plan grants it.')
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(ENTITLEMENTS.length)
  @ArrayUnique()
  @IsIn(ENTITLEMENTS, { each: true })
  remove?: Entitlement[];

  @entitlementList("Back to the plan's default (the tenant's override, if any, is removed).")
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(ENTITLEMENTS.length)
  @ArrayUnique()
  @IsIn(ENTITLEMENTS, { each: true })
  reset?: Entitlement[];
}

/** PATCH /tenants/{tenantId}: any of these, applied together in one transaction. */
@ApiSchema({ name: 'UpdateTenantDto' })
export class UpdateTenantRequest {
  @ApiPropertyOptional({
    example: 'Acme Europe',
    minLength: 1,
    maxLength: TENANT_NAME_MAX,
    description: NAME_DESCRIPTION,
  })
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(TENANT_NAME_MAX)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({
    enum: PLANS,
    example: 'enterprise',
    description: "The new plan; the tenant's overrides stay and apply on top of it.",
  })
  @IfPresent()
  @IsIn(PLANS)
  plan?: Plan;

  @ApiPropertyOptional({ type: EntitlementChangesRequest })
  @IfPresent()
  @IsObject()
  @ValidateNested()
  @Type(() => EntitlementChangesRequest)
  entitlements?: EntitlementChangesRequest;
}
