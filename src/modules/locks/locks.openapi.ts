// The OpenAPI text of locks.controller.ts: one composed decorator per handler,
// `LocksDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import { CheckinRequest, CheckoutRequest } from './dto/lock.request.js';
import { CheckinResponse, CheckoutResponse } from './dto/lock.response.js';

/** The OpenAPI text of each route of LocksController, one composed decorator per handler. */
export const LocksDocs = {
  checkout: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Check a document out (take its lock)',
        description:
          'Takes the temporary lock of the document for `ttl_minutes` (5..240, default 30; the body ' +
          'may be omitted). The response carries a one-time `lock_token` (`glk_…`), shown only here.\n\n' +
          'While the lock is live (until `expires_at`), staging a candidate revision ' +
          '(`POST /documents/{documentId}/external-revisions`) needs the header ' +
          '`Lock-Token: glk_…` carrying this token; without it, or with another token, staging answers ' +
          '423 `document_locked`. An unlocked document needs no `Lock-Token` (one sent is ignored).\n\n' +
          'Only one live lock exists per document: concurrent checkouts have exactly one winner, the ' +
          'others get 423 `document_locked` with the `expires_at` of the live lock (never its token). ' +
          'Release it early with `POST /documents/{documentId}/checkin`; otherwise it lapses at ' +
          '`expires_at` and a `document.lock_expired` event is published. Publishes ' +
          '`document.checked_out`.',
      }),
      ApiBody({
        type: CheckoutRequest,
        required: false,
        examples: {
          one_hour: { summary: 'A lock for one hour', value: { ttl_minutes: 60 } },
          default_ttl: { summary: 'The default of 30 minutes', value: {} },
        },
      }),
      ApiCreatedResponse({ type: CheckoutResponse, description: 'The lock is taken.' }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `ttl_minutes` not an integer in 5..240, or an unknown field.',
        },
        { status: 404, description: '`not_found`: no such document for this tenant.' },
        413,
        423,
      ),
    ),
  checkin: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Check a document in (release its lock)',
        description:
          'Releases the live lock of the document. `lock_token` must be the token of that lock; it is ' +
          'one-time, so it is dead afterwards. Publishes `document.checked_in`.',
      }),
      ApiBody({
        type: CheckinRequest,
        examples: {
          checkin: {
            summary: 'The token of the checkout',
            value: { lock_token: 'glk_WRcIdf92rptTTEfRHNAuXxsEWsbRrhPiHLrNVKftQT44XHJpP' },
          },
        },
      }),
      ApiOkResponse({ type: CheckinResponse, description: 'The lock is released.' }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `lock_token` missing or not a string, or an unknown field.',
        },
        { status: 404, description: '`not_found`: no such document for this tenant.' },
        { status: 409, codes: ['lock_token_invalid'] },
        413,
      ),
    ),
};
