// The OpenAPI text of audit.platform.controller.ts: one composed decorator per handler,
// `AuditPlatformDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { AuditListResponse } from './dto/audit.response.js';

/** The OpenAPI text of each route of AuditPlatformController, one composed decorator per handler. */
export const AuditPlatformDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: 'The audit trail',
        description:
          "Every tenant's audit lines (or one tenant's: `tenantId`), newest first, `limit` a page; " +
          '`next_cursor` reads the next, older page. Filters, combined: `action`, `since` ' +
          '(inclusive), `until` (exclusive). The same lines as the CLI `audit list`.',
      }),
      ApiResponse({ status: 200, type: AuditListResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `limit` not an integer in 1..1000, `tenantId` not a positive integer, `action` empty or over 100 characters, `since` or `until` not a date or a date-time with its zone, or a cursor that is not of this list and these filters.',
        },
        { status: 404, description: '`not_found`: there is no tenant `tenantId`.' },
      ),
    ),
};
