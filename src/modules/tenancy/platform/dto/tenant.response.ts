import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ENTITLEMENTS, type Entitlement } from '../../../../common/access/entitlements.js';
import { PLANS, type Plan } from '../../plans.js';
import { CursorPageResponse } from '../../../../common/pagination/page.response.js';

/** What every view of a tenant starts with. */
abstract class TenantHead {
  @ApiProperty({ example: 2 })
  tenant_id!: number;

  @ApiProperty({ example: 'Acme' })
  name!: string;

  @ApiProperty({ enum: PLANS, example: 'professional' })
  plan!: Plan;
}

@ApiSchema({ name: 'TenantListItemView' })
export class TenantListItemResponse extends TenantHead {
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
}

@ApiSchema({ name: 'TenantListView' })
export class TenantListResponse extends CursorPageResponse {
  @ApiProperty({ type: [TenantListItemResponse], description: 'Oldest first.' })
  data!: TenantListItemResponse[];
}

@ApiSchema({ name: 'EntitlementOverrideView' })
export class EntitlementOverrideResponse {
  @ApiProperty({ enum: ENTITLEMENTS, example: 'auth.pat' })
  entitlement!: Entitlement;

  @ApiProperty({
    example: true,
    description: '`true`: granted beyond the plan; `false`: withheld although the plan grants it.',
  })
  granted!: boolean;
}

@ApiSchema({ name: 'TenantCountsView' })
export class TenantCountsResponse {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 3,
    description: 'API clients, disabled ones included.',
  })
  clients!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 2 })
  clients_enabled!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 1,
    description: 'Personal access tokens, revoked and expired included.',
  })
  pats!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 1,
    description: 'Neither revoked nor expired.',
  })
  pats_active!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 4 })
  projects!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 37 })
  documents!: number;
}

@ApiSchema({ name: 'TenantView' })
export class TenantResponse extends TenantHead {
  @ApiProperty({
    enum: ENTITLEMENTS,
    isArray: true,
    example: ['api.locks', 'api.read', 'api.revisions', 'auth.ip_allowlist', 'auth.pat'],
    description: "In effect now: the plan's, plus the additions, minus the removals (sorted).",
  })
  entitlements!: Entitlement[];

  @ApiProperty({
    type: [EntitlementOverrideResponse],
    example: [{ entitlement: 'auth.pat', granted: true }],
    description: "The tenant's own overrides of its plan, by entitlement name.",
  })
  overrides!: EntitlementOverrideResponse[];

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ type: TenantCountsResponse })
  counts!: TenantCountsResponse;
}
