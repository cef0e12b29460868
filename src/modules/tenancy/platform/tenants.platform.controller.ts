import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { NoStore } from '../../../common/http/no-store.decorator.js';
import { ParseIdPipe } from '../../../common/http/params.js';
import { PlatformPageQuery } from '../../../common/pagination/page-query.js';
import { Audited } from '../../audit/audited.decorator.js';
import { ActingUser, PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { TenancyService } from '../tenancy.service.js';
import { CreateTenantRequest, UpdateTenantRequest } from './dto/tenant.request.js';
import { TenantListResponse, TenantResponse } from './dto/tenant.response.js';

/** The tenant an audited tenant route acted on: the path's, or the one it made. */
const tenantOf = (req: { params: Record<string, string | undefined> }, body: unknown) =>
  (body as { tenant_id?: number } | undefined)?.tenant_id ??
  (req.params['tenantId'] ? Number(req.params['tenantId']) : null);

const tenantTarget = (req: { params: Record<string, string | undefined> }, body: unknown) => {
  const id = tenantOf(req, body);
  return id === null ? null : `tenant:${id}`;
};

/**
 * The platform's tenants: the same TenancyService methods as the CLI's `tenant` commands, so a
 * rule (plans, entitlement overrides, names) lives in one place.
 */
@ApiTags('tenants')
@Controller('tenants')
@PlatformAuthorized('platform:tenants')
export class TenantsPlatformController {
  constructor(private readonly tenancy: TenancyService) {}

  @Post()
  @HttpCode(201)
  @Audited({ action: 'tenant.create', target: tenantTarget, tenant: tenantOf })
  @ApiOperation({
    summary: 'Create a tenant',
    description:
      "A tenant (company) on a plan; it has the plan's entitlements and no credential yet. " +
      'Answers its detail, as `GET /tenants/{tenantId}` does.',
  })
  @ApiResponse({ status: 201, type: TenantResponse })
  @ApiProblemResponses({
    status: 400,
    description:
      '`validation_failed`: `name` blank or longer than 200 characters, `plan` not one of ' +
      '`starter`, `professional`, `enterprise`, an unknown field, or no `X-Acting-User`.',
  })
  create(@ActingUser() _actor: string, @Body() body: CreateTenantRequest): Promise<TenantResponse> {
    return this.tenancy.createDetailed(body.name, body.plan);
  }

  @Get()
  @ApiOperation({
    summary: 'List tenants',
    description: 'Every tenant, oldest first, `limit` per page (default 100).',
  })
  @ApiResponse({ status: 200, type: TenantListResponse })
  @ApiProblemResponses({
    status: 400,
    description:
      "`validation_failed`: `limit` outside 1..1000, or a cursor that is not this list's.",
  })
  list(@Query() query: PlatformPageQuery): Promise<TenantListResponse> {
    return this.tenancy.page(query);
  }

  @Get(':tenantId')
  @ApiOperation({
    summary: 'Show a tenant',
    description:
      'Its plan, the entitlements in effect, its own overrides of the plan, and how many ' +
      'clients, personal access tokens, projects and documents it has.',
  })
  @ApiResponse({ status: 200, type: TenantResponse })
  @ApiProblemResponses(
    { status: 400, description: '`validation_failed`: tenantId is not a positive integer.' },
    { status: 404, description: '`not_found`: unknown tenant.' },
  )
  get(@Param('tenantId', ParseIdPipe) tenantId: number): Promise<TenantResponse> {
    return this.tenancy.detail(tenantId);
  }

  @Patch(':tenantId')
  @NoStore()
  @Audited({ action: 'tenant.update', target: tenantTarget, tenant: tenantOf })
  @ApiOperation({
    summary: 'Change a tenant',
    description:
      'Any of: a new `name`; a new `plan` (applies at once: every credential of the tenant is ' +
      'checked against it from its next request); entitlement overrides — `add` grants beyond ' +
      'the plan, `remove` withholds, `reset` returns to the plan. All in one transaction: a ' +
      'refusal changes nothing. An entitlement may be named once across the three lists. An ' +
      'empty body changes nothing and answers the detail.',
  })
  @ApiBody({
    type: UpdateTenantRequest,
    examples: {
      upgrade: { summary: 'Upgrade the plan', value: { plan: 'enterprise' } },
      overrides: {
        summary: 'Grant PATs, withhold locks',
        value: { entitlements: { add: ['auth.pat'], remove: ['api.locks'] } },
      },
    },
  })
  @ApiResponse({ status: 200, type: TenantResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: a blank or too long `name`, an unknown `plan` or entitlement, an ' +
        'entitlement named in two lists, an unknown field, no `X-Acting-User`, or tenantId is ' +
        'not a positive integer.',
    },
    { status: 404, description: '`not_found`: unknown tenant.' },
  )
  update(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Body() body: UpdateTenantRequest,
  ): Promise<TenantResponse> {
    return this.tenancy.update(tenantId, body);
  }
}
