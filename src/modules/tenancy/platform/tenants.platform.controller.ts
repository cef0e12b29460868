import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { NoStore } from '../../../common/http/no-store.decorator.js';
import { ParseIdPipe } from '../../../common/http/params.js';
import { PlatformPageQuery } from '../../../common/pagination/page-query.js';
import { Audited } from '../../audit/audited.decorator.js';
import { ActingUser, PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { TenancyService } from '../tenancy.service.js';
import { CreateTenantRequest, UpdateTenantRequest } from './dto/tenant.request.js';
import { TenantListResponse, TenantResponse } from './dto/tenant.response.js';
import { TenantsPlatformDocs } from './tenants.platform.openapi.js';

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
  @TenantsPlatformDocs.create()
  create(@ActingUser() _actor: string, @Body() body: CreateTenantRequest): Promise<TenantResponse> {
    return this.tenancy.createDetailed(body.name, body.plan);
  }

  @Get()
  @TenantsPlatformDocs.list()
  list(@Query() query: PlatformPageQuery): Promise<TenantListResponse> {
    return this.tenancy.page(query);
  }

  @Get(':tenantId')
  @TenantsPlatformDocs.get()
  get(@Param('tenantId', ParseIdPipe) tenantId: number): Promise<TenantResponse> {
    return this.tenancy.detail(tenantId);
  }

  @Patch(':tenantId')
  @NoStore()
  @Audited({ action: 'tenant.update', target: tenantTarget, tenant: tenantOf })
  @TenantsPlatformDocs.update()
  update(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Body() body: UpdateTenantRequest,
  ): Promise<TenantResponse> {
    return this.tenancy.update(tenantId, body);
  }
}
