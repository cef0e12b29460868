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
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { NoStore } from '../../../common/http/no-store.decorator.js';
import { ParseIdPipe } from '../../../common/http/params.js';
import { PlatformPageQuery } from '../../../common/pagination/page-query.js';
import { Audited } from '../../audit/audited.decorator.js';
import { ActingUser, PlatformAuthorized } from '../../platform-keys/platform-access.js';
import type { CursorPage } from '../../../common/pagination/cursor.js';
import type { ClientListRow, PatListRow } from '../auth.repository.js';
import { CredentialAdminService } from '../credential-admin.service.js';
import { CLIENT_ID_PATTERN, ParseClientIdPipe } from './client-id.pipe.js';
import { CredentialTenantInterceptor } from './credential-tenant.interceptor.js';
import { tenantOfAnswer } from '../../audit/route-tenant.interceptor.js';
import {
  CreateClientRequest,
  CreatePatRequest,
  RotateClientSecretRequest,
} from './dto/credential.request.js';
import {
  ClientListResponse,
  CreatedClientResponse,
  CreatedPatResponse,
  DisabledClientResponse,
  PatListResponse,
  RevokedPatResponse,
  RotatedClientSecretResponse,
} from './dto/credential.response.js';

type AuditRequest = { params: Record<string, string | undefined> };

/** The tenant of the path (an unknown one is audited as none). */
const tenantOf = (req: AuditRequest): number | null =>
  req.params['tenantId'] ? Number(req.params['tenantId']) : null;

const clientTarget = (req: AuditRequest, body: unknown): string =>
  `client:${(body as { client_id?: string } | undefined)?.client_id ?? req.params['clientId'] ?? '-'}`;

const patTarget = (req: AuditRequest, body: unknown): string =>
  `pat:${(body as { pat_id?: number } | undefined)?.pat_id ?? req.params['patId'] ?? '-'}`;

const TENANT_PROBLEMS = [{ status: 404 as const, description: '`not_found`: unknown tenant.' }];

/** The 400 of a tenant's paged credential list. */
const TENANT_PAGE_INVALID = {
  status: 400 as const,
  description:
    "`validation_failed`: `limit` outside 1..1000, a cursor that is not this list's, or " +
    'tenantId is not a positive integer.',
};

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
  @ApiOperation({
    summary: 'Create an API client',
    description:
      'A client for the client-credentials grant of the integration API. Its secret is in ' +
      'this response only (kept as a digest). `allowed_ips` needs the `auth.ip_allowlist` ' +
      'entitlement.',
  })
  @ApiResponse({ status: 201, type: CreatedClientResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: a blank or too long `name`, no or an unknown scope, an ' +
        '`allowed_ips` entry that is not an IPv4 or IPv6 CIDR, an unknown field, no ' +
        '`X-Acting-User`, or tenantId is not a positive integer.',
    },
    {
      status: 403,
      codes: ['entitlement_required'],
      description:
        "`entitlement_required`: `allowed_ips` without the tenant's `auth.ip_allowlist`.",
    },
    ...TENANT_PROBLEMS,
  )
  createClient(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Body() body: CreateClientRequest,
  ): Promise<CreatedClientResponse> {
    return this.admin.createClient(tenantId, { ...body, allowedIps: body.allowed_ips });
  }

  @Get('tenants/:tenantId/clients')
  @ApiOperation({
    summary: "List a tenant's API clients",
    description: 'Oldest first, disabled ones included; never a secret.',
  })
  @ApiResponse({ status: 200, type: ClientListResponse })
  @ApiProblemResponses(TENANT_PAGE_INVALID, ...TENANT_PROBLEMS)
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
  @ApiOperation({
    summary: 'Disable an API client',
    description:
      'At once and for good: its secret is refused and its access tokens are revoked. ' +
      'Disabling it again answers the same.',
  })
  @ApiParam({ name: 'clientId', schema: { type: 'string', pattern: CLIENT_ID_PATTERN.source } })
  @ApiResponse({ status: 200, type: DisabledClientResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description: '`validation_failed`: clientId is not a client id, or no `X-Acting-User`.',
    },
    { status: 404, description: '`not_found`: unknown client.' },
  )
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
  @ApiOperation({
    summary: "Rotate an API client's secret",
    description:
      'A new secret, in this response only. The old one is refused from the moment this ' +
      'answers, on every replica. Access tokens already issued stay valid until they expire, ' +
      'unless `revoke_tokens` is `true`: then they are revoked in the same transaction. The ' +
      'body is optional.',
  })
  @ApiParam({ name: 'clientId', schema: { type: 'string', pattern: CLIENT_ID_PATTERN.source } })
  @ApiBody({
    type: RotateClientSecretRequest,
    required: false,
    examples: {
      keep_tokens: { summary: 'Tokens already issued live on', value: {} },
      revoke_tokens: { summary: 'Revoke its tokens too', value: { revoke_tokens: true } },
    },
  })
  @ApiResponse({ status: 200, type: RotatedClientSecretResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: `revoke_tokens` is not a boolean, an unknown field, clientId is ' +
        'not a client id, or no `X-Acting-User`.',
    },
    { status: 404, description: '`not_found`: unknown client.' },
    { status: 409, codes: ['client_disabled'] },
  )
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
  @ApiOperation({
    summary: 'Create a personal access token',
    description:
      'A bearer token for the integration API, in this response only (kept as a digest). ' +
      'Needs the `auth.pat` entitlement; `allowed_ips` also `auth.ip_allowlist`.',
  })
  @ApiResponse({ status: 201, type: CreatedPatResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: a blank or too long `name`, no or an unknown scope, an ' +
        '`allowed_ips` entry that is not a CIDR, `expires_in_days` outside 1..365, an unknown ' +
        'field, no `X-Acting-User`, or tenantId is not a positive integer.',
    },
    {
      status: 403,
      codes: ['entitlement_required'],
      description:
        '`entitlement_required`: the tenant lacks `auth.pat` (or `auth.ip_allowlist` for ' +
        '`allowed_ips`).',
    },
    ...TENANT_PROBLEMS,
  )
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
  @ApiOperation({
    summary: "List a tenant's personal access tokens",
    description: 'Oldest first, revoked and expired ones included; never a token.',
  })
  @ApiResponse({ status: 200, type: PatListResponse })
  @ApiProblemResponses(TENANT_PAGE_INVALID, ...TENANT_PROBLEMS)
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
  @ApiOperation({
    summary: 'Revoke a personal access token',
    description: 'At once and for good. Revoking it again keeps the first revocation time.',
  })
  @ApiResponse({ status: 200, type: RevokedPatResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description: '`validation_failed`: patId is not a positive integer, or no `X-Acting-User`.',
    },
    { status: 404, description: '`not_found`: unknown personal access token.' },
  )
  revokePat(
    @ActingUser() _actor: string,
    @Param('patId', ParseIdPipe) patId: number,
  ): Promise<RevokedPatResponse> {
    return this.admin.revokePat(patId);
  }
}
