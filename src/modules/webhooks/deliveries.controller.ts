import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
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
  @ApiOperation({
    operationId: 'Webhooks_listDeliveries',
    summary: 'List and search deliveries',
    description:
      'Deliveries of all webhooks of the tenant, newest first (descending deliveryId), `limit` ' +
      '(default 50) per page; `next_cursor` reads the next, older page, down to the oldest. ' +
      'Optional filters, combined: `webhookId`, `status` (repeat it for several) and ' +
      '`event_type`. A cursor reads on with the filters it was made with only. Deliveries created ' +
      'while a client walks the pages are newer than the first page: no page repeats or skips ' +
      'a delivery because of them. A page filtered by `status` or `event_type` reads at most ' +
      '10,000 deliveries of the history: it may hold fewer than `limit` items, even none, and ' +
      'still carry a `next_cursor`; the walk ends only when `next_cursor` is null.',
  })
  @ApiResponse({ status: 200, type: DeliveryListResponse })
  @ApiProblemResponses({
    status: 400,
    description:
      '`validation_failed`: `limit` not an integer in 1..100 (never clamped), `webhookId` not a positive integer, a `status` or `event_type` that is not one of the listed values, a repeated `webhookId` or `event_type`, or a cursor that is malformed or not of this list, these filters and tenant.',
  })
  listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListDeliveriesQuery,
  ): Promise<JsonText<DeliveryListResponse>> {
    return this.deliveries.listDeliveries(principal.tenantId, query);
  }

  @Get('webhook-deliveries/:deliveryId')
  @Authorized(READ)
  @ApiOperation({
    operationId: 'Webhooks_getDelivery',
    summary: 'Get a delivery',
    description: 'One delivery, as listed by `GET /webhook-deliveries`.',
  })
  @ApiResponse({ status: 200, type: DeliveryResponse })
  @ApiProblemResponses(
    { status: 400, description: '`validation_failed`: deliveryId is not a positive integer.' },
    { status: 404, description: '`not_found`: unknown delivery, or one of another tenant.' },
  )
  getDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('deliveryId', ParseBigIdPipe) deliveryId: number,
  ): Promise<DeliveryResponse> {
    return this.deliveries.getDelivery(principal.tenantId, deliveryId);
  }

  @Get('webhook-deliveries/:deliveryId/attempts')
  @Authorized(READ)
  @ApiOperation({
    operationId: 'Webhooks_listAttempts',
    summary: "List a delivery's attempts",
    description:
      'Every attempt of the delivery, oldest first (the newest 1,000 of a delivery replayed ' +
      'more often than that, numbered as ever): when it started, how long it took, the ' +
      "receiver's status, the error, and the first 1 KiB of the receiver's response body as " +
      'text. Nothing that was sent (headers, signature) is kept.',
  })
  @ApiResponse({ status: 200, type: DeliveryAttemptListResponse })
  @ApiProblemResponses(
    { status: 400, description: '`validation_failed`: deliveryId is not a positive integer.' },
    { status: 404, description: '`not_found`: unknown delivery, or one of another tenant.' },
  )
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
  @ApiOperation({
    operationId: 'Webhooks_replay',
    summary: 'Replay a delivery',
    description:
      'Requeues a `failed` or `retry` delivery of a webhook that is not revoked. It is sent again ' +
      'with the same `webhook-id` and body.',
  })
  @ApiResponse({ status: 200, type: ReplayResponse })
  @ApiProblemResponses(
    { status: 400, description: '`validation_failed`: deliveryId is not a positive integer.' },
    { status: 404, description: '`not_found`: unknown delivery, or one of another tenant.' },
    {
      status: 409,
      codes: ['webhook_revoked', 'delivery_not_replayable'],
      description:
        'The webhook is revoked (`webhook_revoked`, checked first), or the delivery is not failed/retry (`delivery_not_replayable`).',
    },
  )
  replay(
    @CurrentPrincipal() principal: Principal,
    @Param('deliveryId', ParseBigIdPipe) deliveryId: number,
  ): Promise<ReplayResponse> {
    return this.deliveries.replay(principal.tenantId, deliveryId);
  }
}
