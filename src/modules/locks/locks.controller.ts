import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { NoStore } from '../../common/http/no-store.decorator.js';
import { ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '../../common/http/params.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import { CheckinRequest, CheckoutRequest } from './dto/lock.request.js';
import { CheckinResponse, CheckoutResponse } from './dto/lock.response.js';
import { LocksService } from './locks.service.js';
import { Audited, documentTarget } from '../audit/audited.decorator.js';
import { LocksDocs } from './locks.openapi.js';

@ApiTags('locks')
@Controller('documents/:documentId')
export class LocksController {
  constructor(private readonly locks: LocksService) {}

  @Post('checkout')
  @NoStore()
  @Audited('document.checkout', documentTarget)
  @Authorized({ scope: 'locks:write', entitlement: 'api.locks' })
  @LocksDocs.checkout()
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
  @LocksDocs.checkin()
  checkin(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() body: CheckinRequest,
  ): Promise<CheckinResponse> {
    return this.locks.checkin(principal, documentId, body.lock_token);
  }
}
