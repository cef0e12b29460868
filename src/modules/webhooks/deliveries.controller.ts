import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { JsonText } from '../../common/http/json-text.js';
import { ParseBigIdPipe } from '../../common/http/params.js';
import { Audited } from '../audit/audited.decorator.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import { DeliveriesService } from './deliveries.service.js';
import { ListDeliveriesQuery } from './dto/delivery.request.js';
import {
  DeliveryAttemptListResponse,
  DeliveryListResponse,
  DeliveryResponse,
  ReplayResponse,
} from './dto/delivery.response.js';
import { READ, WRITE } from './webhooks.access.js';
import { DeliveriesDocs } from './deliveries.openapi.js';

/**
 * The delivery history of the tenant's webhooks. Its operations keep the ids they had when they
 * were part of `WebhooksController` (`Webhooks_…`): clients generated from the document use them.
 */
@ApiTags('webhooks')
@Controller()
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get('webhook-deliveries')
  @Authorized(READ)
  @DeliveriesDocs.listDeliveries()
  listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListDeliveriesQuery,
  ): Promise<JsonText<DeliveryListResponse>> {
    return this.deliveries.listDeliveries(principal.tenantId, query);
  }

  @Get('webhook-deliveries/:deliveryId')
  @Authorized(READ)
  @DeliveriesDocs.getDelivery()
  getDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('deliveryId', ParseBigIdPipe) deliveryId: number,
  ): Promise<DeliveryResponse> {
    return this.deliveries.getDelivery(principal.tenantId, deliveryId);
  }

  @Get('webhook-deliveries/:deliveryId/attempts')
  @Authorized(READ)
  @DeliveriesDocs.listAttempts()
  listAttempts(
    @CurrentPrincipal() principal: Principal,
    @Param('deliveryId', ParseBigIdPipe) deliveryId: number,
  ): Promise<JsonText<DeliveryAttemptListResponse>> {
    return this.deliveries.listAttempts(principal.tenantId, deliveryId);
  }

  @Post('webhook-deliveries/:deliveryId/replay')
  @Audited('delivery.replay', (req) => `delivery:${String(req.params['deliveryId'])}`)
  @HttpCode(200)
  @Authorized(WRITE)
  @DeliveriesDocs.replay()
  replay(
    @CurrentPrincipal() principal: Principal,
    @Param('deliveryId', ParseBigIdPipe) deliveryId: number,
  ): Promise<ReplayResponse> {
    return this.deliveries.replay(principal.tenantId, deliveryId);
  }
}
