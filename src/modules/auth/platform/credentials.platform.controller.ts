import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { NoStore } from '../../../common/http/no-store.decorator.js';
import { ParseIdPipe } from '../../../common/http/params.js';
import { PlatformPageQuery } from '../../../common/pagination/page-query.js';
import { Audited } from '../../audit/audited.decorator.js';
import { ActingUser, PlatformAuthorized } from '../../platform-keys/platform-access.js';
import type { CursorPage } from '../../../common/pagination/cursor.js';
import type { ClientListRow, PatListRow } from '../auth.repository.js';
import { CredentialAdminService } from '../credential-admin.service.js';
import { ParseClientIdPipe } from './client-id.pipe.js';
import { CredentialTenantInterceptor } from './credential-tenant.interceptor.js';
import { tenantOfAnswer } from '../../audit/route-tenant.interceptor.js';
import {
  CreateClientRequest,
  CreatePatRequest,
  RotateClientSecretRequest,
} from './dto/credential.request.js';
import {
  CreatedClientResponse,
  CreatedPatResponse,
  DisabledClientResponse,
  RevokedPatResponse,
  RotatedClientSecretResponse,
} from './dto/credential.response.js';
import { CredentialsPlatformDocs } from './credentials.platform.openapi.js';

type AuditRequest = { params: Record<string, string | undefined> };

/** The tenant of the path (an unknown one is audited as none). */
const tenantOf = (req: AuditRequest): number | null =>
  req.params['tenantId'] ? Number(req.params['tenantId']) : null;

const clientTarget = (req: AuditRequest, body: unknown): string =>
  `client:${(body as { client_id?: string } | undefined)?.client_id ?? req.params['clientId'] ?? '-'}`;

const patTarget = (req: AuditRequest, body: unknown): string =>
  `pat:${(body as { pat_id?: number } | undefined)?.pat_id ?? req.params['patId'] ?? '-'}`;

/**
 * A tenant's API clients and personal access tokens, as the platform manages them: the same
 * CredentialAdminService methods as the CLI's `client` and `pat` commands (scopes, allowlists,
 * entitlement checks, secrets shown once). Routes by a client or PAT id name no tenant: the
 * credential's own tenant is looked up, and it is the one answered and audited.
 */
@ApiTags('credentials')
@Controller()
@PlatformAuthorized('platform:credentials')
export class CredentialsPlatformController {
  constructor(private readonly admin: CredentialAdminService) {}

  @Post('tenants/:tenantId/clients')
  @NoStore()
  @HttpCode(201)
  @Audited({ action: 'client.create', target: clientTarget, tenant: tenantOf })
  @CredentialsPlatformDocs.createClient()
  createClient(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Body() body: CreateClientRequest,
  ): Promise<CreatedClientResponse> {
    return this.admin.createClient(tenantId, { ...body, allowedIps: body.allowed_ips });
  }

  @Get('tenants/:tenantId/clients')
  @CredentialsPlatformDocs.listClients()
  listClients(
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Query() query: PlatformPageQuery,
  ): Promise<CursorPage<ClientListRow>> {
    return this.admin.pageClients(tenantId, query);
  }

  @Post('clients/:clientId/disable')
  @HttpCode(200)
  @Audited({ action: 'client.disable', target: clientTarget, tenant: tenantOfAnswer })
  @UseInterceptors(CredentialTenantInterceptor)
  @CredentialsPlatformDocs.disableClient()
  disableClient(
    @ActingUser() _actor: string,
    @Param('clientId', ParseClientIdPipe) clientId: string,
  ): Promise<DisabledClientResponse> {
    return this.admin.disableClient(clientId);
  }

  @Post('clients/:clientId/secret/rotate')
  @NoStore()
  @HttpCode(200)
  @Audited({ action: 'client.rotate_secret', target: clientTarget, tenant: tenantOfAnswer })
  @UseInterceptors(CredentialTenantInterceptor)
  @CredentialsPlatformDocs.rotateClientSecret()
  rotateClientSecret(
    @ActingUser() _actor: string,
    @Param('clientId', ParseClientIdPipe) clientId: string,
    @Body() body: RotateClientSecretRequest,
  ): Promise<RotatedClientSecretResponse> {
    return this.admin.rotateClientSecret(clientId, { revokeTokens: body.revoke_tokens });
  }

  @Post('tenants/:tenantId/pats')
  @NoStore()
  @HttpCode(201)
  @Audited({ action: 'pat.create', target: patTarget, tenant: tenantOf })
  @CredentialsPlatformDocs.createPat()
  createPat(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Body() body: CreatePatRequest,
  ): Promise<CreatedPatResponse> {
    return this.admin.createPat(tenantId, {
      ...body,
      allowedIps: body.allowed_ips,
      expiresInDays: body.expires_in_days,
    });
  }

  @Get('tenants/:tenantId/pats')
  @CredentialsPlatformDocs.listPats()
  listPats(
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Query() query: PlatformPageQuery,
  ): Promise<CursorPage<PatListRow>> {
    return this.admin.pagePats(tenantId, query);
  }

  @Post('pats/:patId/revoke')
  @HttpCode(200)
  @Audited({ action: 'pat.revoke', target: patTarget, tenant: tenantOfAnswer })
  @UseInterceptors(CredentialTenantInterceptor)
  @CredentialsPlatformDocs.revokePat()
  revokePat(
    @ActingUser() _actor: string,
    @Param('patId', ParseIdPipe) patId: number,
  ): Promise<RevokedPatResponse> {
    return this.admin.revokePat(patId);
  }
}
