// The OpenAPI text of credentials.platform.controller.ts: one composed decorator per handler,
// `CredentialsPlatformDocs.<handler>()`, built with Nest's applyDecorators and written last
// above the handler, so the controller keeps only routing and behaviour. applyDecorators applies
// in the order written (stacked decorators apply bottom-up): headers and parameters reach the
// document in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { CLIENT_ID_PATTERN } from './client-id.pipe.js';
import { RotateClientSecretRequest } from './dto/credential.request.js';
import {
  ClientListResponse,
  CreatedClientResponse,
  CreatedPatResponse,
  DisabledClientResponse,
  PatListResponse,
  RevokedPatResponse,
  RotatedClientSecretResponse,
} from './dto/credential.response.js';

const TENANT_PROBLEMS = [{ status: 404 as const, description: '`not_found`: unknown tenant.' }];

/** The 400 of a tenant's paged credential list. */
const TENANT_PAGE_INVALID = {
  status: 400 as const,
  description:
    "`validation_failed`: `limit` outside 1..1000, a cursor that is not this list's, or " +
    'tenantId is not a positive integer.',
};

/** The OpenAPI text of each route of CredentialsPlatformController, one composed decorator per handler. */
export const CredentialsPlatformDocs = {
  createClient: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Create an API client',
        description:
          'A client for the client-credentials grant of the integration API. Its secret is in ' +
          'this response only (kept as a digest). `allowed_ips` needs the `auth.ip_allowlist` ' +
          'entitlement.',
      }),
      ApiResponse({ status: 201, type: CreatedClientResponse }),
      ApiProblemResponses(
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
      ),
    ),
  listClients: () =>
    applyDecorators(
      ApiOperation({
        summary: "List a tenant's API clients",
        description: 'Oldest first, disabled ones included; never a secret.',
      }),
      ApiResponse({ status: 200, type: ClientListResponse }),
      ApiProblemResponses(TENANT_PAGE_INVALID, ...TENANT_PROBLEMS),
    ),
  disableClient: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Disable an API client',
        description:
          'At once and for good: its secret is refused and its access tokens are revoked. ' +
          'Disabling it again answers the same.',
      }),
      ApiParam({ name: 'clientId', schema: { type: 'string', pattern: CLIENT_ID_PATTERN.source } }),
      ApiResponse({ status: 200, type: DisabledClientResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description: '`validation_failed`: clientId is not a client id, or no `X-Acting-User`.',
        },
        { status: 404, description: '`not_found`: unknown client.' },
      ),
    ),
  rotateClientSecret: () =>
    applyDecorators(
      ApiOperation({
        summary: "Rotate an API client's secret",
        description:
          'A new secret, in this response only. The old one is refused from the moment this ' +
          'answers, on every replica. Access tokens already issued stay valid until they expire, ' +
          'unless `revoke_tokens` is `true`: then they are revoked in the same transaction. The ' +
          'body is optional.',
      }),
      ApiParam({ name: 'clientId', schema: { type: 'string', pattern: CLIENT_ID_PATTERN.source } }),
      ApiBody({
        type: RotateClientSecretRequest,
        required: false,
        examples: {
          keep_tokens: { summary: 'Tokens already issued live on', value: {} },
          revoke_tokens: { summary: 'Revoke its tokens too', value: { revoke_tokens: true } },
        },
      }),
      ApiResponse({ status: 200, type: RotatedClientSecretResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `revoke_tokens` is not a boolean, an unknown field, clientId is ' +
            'not a client id, or no `X-Acting-User`.',
        },
        { status: 404, description: '`not_found`: unknown client.' },
        { status: 409, codes: ['client_disabled'] },
      ),
    ),
  createPat: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Create a personal access token',
        description:
          'A bearer token for the integration API, in this response only (kept as a digest). ' +
          'Needs the `auth.pat` entitlement; `allowed_ips` also `auth.ip_allowlist`.',
      }),
      ApiResponse({ status: 201, type: CreatedPatResponse }),
      ApiProblemResponses(
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
      ),
    ),
  listPats: () =>
    applyDecorators(
      ApiOperation({
        summary: "List a tenant's personal access tokens",
        description: 'Oldest first, revoked and expired ones included; never a token.',
      }),
      ApiResponse({ status: 200, type: PatListResponse }),
      ApiProblemResponses(TENANT_PAGE_INVALID, ...TENANT_PROBLEMS),
    ),
  revokePat: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Revoke a personal access token',
        description: 'At once and for good. Revoking it again keeps the first revocation time.',
      }),
      ApiResponse({ status: 200, type: RevokedPatResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: patId is not a positive integer, or no `X-Acting-User`.',
        },
        { status: 404, description: '`not_found`: unknown personal access token.' },
      ),
    ),
};
