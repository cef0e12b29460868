// The OpenAPI text of tenants.platform.controller.ts: one composed decorator per handler,
// `TenantsPlatformDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { UpdateTenantRequest } from './dto/tenant.request.js';
import { TenantListResponse, TenantResponse } from './dto/tenant.response.js';

/** The OpenAPI text of each route of TenantsPlatformController, one composed decorator per handler. */
export const TenantsPlatformDocs = {
  create: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Create a tenant',
        description:
          "A tenant (company) on a plan; it has the plan's entitlements and no credential yet. " +
          'Answers its detail, as `GET /tenants/{tenantId}` does.',
      }),
      ApiResponse({ status: 201, type: TenantResponse }),
      ApiProblemResponses({
        status: 400,
        description:
          '`validation_failed`: `name` blank or longer than 200 characters, `plan` not one of ' +
          '`starter`, `professional`, `enterprise`, an unknown field, or no `X-Acting-User`.',
      }),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: 'List tenants',
        description: 'Every tenant, oldest first, `limit` per page (default 100).',
      }),
      ApiResponse({ status: 200, type: TenantListResponse }),
      ApiProblemResponses({
        status: 400,
        description:
          "`validation_failed`: `limit` outside 1..1000, or a cursor that is not this list's.",
      }),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Show a tenant',
        description:
          'Its plan, the entitlements in effect, its own overrides of the plan, and how many ' +
          'clients, personal access tokens, projects and documents it has.',
      }),
      ApiResponse({ status: 200, type: TenantResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: tenantId is not a positive integer.' },
        { status: 404, description: '`not_found`: unknown tenant.' },
      ),
    ),
  update: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Change a tenant',
        description:
          'Any of: a new `name`; a new `plan` (applies at once: every credential of the tenant is ' +
          'checked against it from its next request); entitlement overrides — `add` grants beyond ' +
          'the plan, `remove` withholds, `reset` returns to the plan. All in one transaction: a ' +
          'refusal changes nothing. An entitlement may be named once across the three lists. An ' +
          'empty body changes nothing and answers the detail.',
      }),
      ApiBody({
        type: UpdateTenantRequest,
        examples: {
          upgrade: { summary: 'Upgrade the plan', value: { plan: 'enterprise' } },
          overrides: {
            summary: 'Grant PATs, withhold locks',
            value: { entitlements: { add: ['auth.pat'], remove: ['api.locks'] } },
          },
        },
      }),
      ApiResponse({ status: 200, type: TenantResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: a blank or too long `name`, an unknown `plan` or entitlement, an ' +
            'entitlement named in two lists, an unknown field, no `X-Acting-User`, or tenantId is ' +
            'not a positive integer.',
        },
        { status: 404, description: '`not_found`: unknown tenant.' },
      ),
    ),
};
