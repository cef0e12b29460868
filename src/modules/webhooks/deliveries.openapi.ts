// The OpenAPI text of deliveries.controller.ts: one composed decorator per handler,
// `DeliveriesDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import {
  ApiProblemResponses,
  type ProblemResponse,
} from '../../common/http/api-problem-responses.js';
import {
  DeliveryAttemptListResponse,
  DeliveryListResponse,
  DeliveryResponse,
  ReplayResponse,
} from './dto/delivery.response.js';

/** What the routes of one delivery answer for an unknown delivery. */
const DELIVERY_NOT_FOUND: ProblemResponse = {
  status: 404,
  description: '`not_found`: unknown delivery, or one of another tenant.',
};

/** The OpenAPI text of each route of DeliveriesController, one composed decorator per handler. */
export const DeliveriesDocs = {
  listDeliveries: () =>
    applyDecorators(
      ApiOperation({
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
      }),
      ApiResponse({ status: 200, type: DeliveryListResponse }),
      ApiProblemResponses({
        status: 400,
        description:
          '`validation_failed`: `limit` not an integer in 1..100 (never clamped), `webhookId` not a positive integer, a `status` or `event_type` that is not one of the listed values, a repeated `webhookId` or `event_type`, or a cursor that is malformed or not of this list, these filters and tenant.',
      }),
    ),
  getDelivery: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'Webhooks_getDelivery',
        summary: 'Get a delivery',
        description: 'One delivery, as listed by `GET /webhook-deliveries`.',
      }),
      ApiResponse({ status: 200, type: DeliveryResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: deliveryId is not a positive integer.' },
        DELIVERY_NOT_FOUND,
      ),
    ),
  listAttempts: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'Webhooks_listAttempts',
        summary: "List a delivery's attempts",
        description:
          'Every attempt of the delivery, oldest first (the newest 1,000 of a delivery replayed ' +
          'more often than that, numbered as ever): when it started, how long it took, the ' +
          "receiver's status, the error, and the first 1 KiB of the receiver's response body as " +
          'text. Nothing that was sent (headers, signature) is kept.',
      }),
      ApiResponse({ status: 200, type: DeliveryAttemptListResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: deliveryId is not a positive integer.' },
        DELIVERY_NOT_FOUND,
      ),
    ),
  replay: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'Webhooks_replay',
        summary: 'Replay a delivery',
        description:
          'Requeues a `failed` or `retry` delivery of a webhook that is not revoked. It is sent again ' +
          'with the same `webhook-id` and body.',
      }),
      ApiResponse({ status: 200, type: ReplayResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: deliveryId is not a positive integer.' },
        DELIVERY_NOT_FOUND,
        {
          status: 409,
          codes: ['webhook_revoked', 'delivery_not_replayable'],
          description:
            'The webhook is revoked (`webhook_revoked`, checked first), or the delivery is not failed/retry (`delivery_not_replayable`).',
        },
      ),
    ),
};
