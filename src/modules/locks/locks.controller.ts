import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ParseIdPipe } from '../../common/http/params.js';
import { Authorized } from '../auth/authorized.decorator.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import {
  CheckinRequestDto,
  CheckinResponseDto,
  CheckoutRequestDto,
  CheckoutResponseDto,
} from './dto/lock.dto.js';
import { LocksService } from './locks.service.js';
import { Audited, documentTarget } from '../audit/audited.decorator.js';

@ApiTags('Locks')
@Controller('documents/:documentId')
export class LocksController {
  constructor(private readonly locks: LocksService) {}

  @Post('checkout')
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
  @ApiBody({ type: CheckoutRequestDto, required: false })
  @ApiCreatedResponse({ type: CheckoutResponseDto, description: 'The lock is taken.' })
  @ApiBadRequestResponse({
    description:
      '`validation_failed`: `ttl_minutes` not an integer in 5..240, or an unknown field.',
  })
  @ApiNotFoundResponse({ description: '`not_found`: no such document for this tenant.' })
  @ApiResponse({
    status: 423,
    description:
      '`document_locked`: a live lock exists; the problem body adds its `expires_at` ' +
      '(e.g. `"expires_at": "2026-11-22T10:30:00.000Z"`), never its token.',
  })
  checkout(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() body: CheckoutRequestDto,
  ): Promise<CheckoutResponseDto> {
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
  @ApiOkResponse({ type: CheckinResponseDto, description: 'The lock is released.' })
  @ApiBadRequestResponse({
    description: '`validation_failed`: `lock_token` missing or not a string, or an unknown field.',
  })
  @ApiNotFoundResponse({ description: '`not_found`: no such document for this tenant.' })
  @ApiConflictResponse({
    description:
      '`lock_token_invalid`: the token is not the live lock of this document (wrong, malformed, ' +
      'expired or already used).',
  })
  checkin(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() body: CheckinRequestDto,
  ): Promise<CheckinResponseDto> {
    return this.locks.checkin(principal, documentId, body.lock_token);
  }
}
