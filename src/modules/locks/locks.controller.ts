import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { NoStore } from '../../common/http/no-store.decorator.js';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import { ParseIdPipe } from '../../common/http/params.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import { CheckinRequest, CheckoutRequest } from './dto/lock.request.js';
import { CheckinResponse, CheckoutResponse } from './dto/lock.response.js';
import { LocksService } from './locks.service.js';
import { Audited, documentTarget } from '../audit/audited.decorator.js';

@ApiTags('locks')
@Controller('documents/:documentId')
export class LocksController {
  constructor(private readonly locks: LocksService) {}

  @Post('checkout')
  @NoStore()
  @Audited('document.checkout', documentTarget)
  @Authorized({ scope: 'locks:write', entitlement: 'api.locks' })
  @ApiOperation({
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
  })
  @ApiBody({
    type: CheckoutRequest,
    required: false,
    examples: {
      one_hour: { summary: 'A lock for one hour', value: { ttl_minutes: 60 } },
      default_ttl: { summary: 'The default of 30 minutes', value: {} },
    },
  })
  @ApiCreatedResponse({ type: CheckoutResponse, description: 'The lock is taken.' })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: `ttl_minutes` not an integer in 5..240, or an unknown field.',
    },
    { status: 404, description: '`not_found`: no such document for this tenant.' },
    413,
    423,
  )
  checkout(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() body: CheckoutRequest,
  ): Promise<CheckoutResponse> {
    return this.locks.checkout(principal, documentId, body.ttl_minutes);
  }

  @Post('checkin')
  @Audited('document.checkin', documentTarget)
  @HttpCode(200)
  @Authorized({ scope: 'locks:write', entitlement: 'api.locks' })
  @ApiOperation({
    summary: 'Check a document in (release its lock)',
    description:
      'Releases the live lock of the document. `lock_token` must be the token of that lock; it is ' +
      'one-time, so it is dead afterwards. Publishes `document.checked_in`.',
  })
  @ApiBody({
    type: CheckinRequest,
    examples: {
      checkin: {
        summary: 'The token of the checkout',
        value: { lock_token: 'glk_WRcIdf92rptTTEfRHNAuXxsEWsbRrhPiHLrNVKftQT44XHJpP' },
      },
    },
  })
  @ApiOkResponse({ type: CheckinResponse, description: 'The lock is released.' })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: `lock_token` missing or not a string, or an unknown field.',
    },
    { status: 404, description: '`not_found`: no such document for this tenant.' },
    { status: 409, codes: ['lock_token_invalid'] },
    413,
  )
  checkin(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() body: CheckinRequest,
  ): Promise<CheckinResponse> {
    return this.locks.checkin(principal, documentId, body.lock_token);
  }
}
