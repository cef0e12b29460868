import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import { ParseIdPipe } from '../../common/http/params.js';
import { CursorPageQuery } from '../../common/pagination/page-query.js';
import { Audited } from '../audit/audited.decorator.js';
import { Authorized } from '../auth/authorized.decorator.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import {
  CreateWebhookDto,
  CreatedWebhookView,
  DeliveryListView,
  ListDeliveriesQuery,
  ReplayView,
  UpdateWebhookStatusDto,
  WebhookListView,
  WebhookView,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';
import type { JsonText } from '../../common/http/json-text.js';

const READ = { scope: 'webhooks:read', entitlement: 'api.webhooks' } as const;
const WRITE = { scope: 'webhooks:write', entitlement: 'api.webhooks' } as const;

@ApiTags('webhooks')
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get('webhooks')
  @Authorized(READ)
  @ApiOperation({
    summary: 'List webhooks',
    description:
      'The webhooks of the tenant, oldest first. The signing secret is never included. At most ' +
      '`limit` (default 1000) per page; `next_cursor` reads the next page.',
  })
  @ApiResponse({ status: 200, type: WebhookListView })
  @ApiProblemResponses({
    status: 400,
    description:
      '`validation_failed`: `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
  })
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<WebhookListView>> {
    return this.webhooks.list(principal.tenantId, query);
  }

  @Post('webhooks')
  @Audited(
    'webhook.create',
    (_req, body) =>
      `webhook:${String((body as { webhookId?: number } | undefined)?.webhookId ?? '-')}`,
  )
  @Authorized(WRITE)
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'Creates an active webhook. The response carries the signing secret (`whsec_…`, Standard Webhooks) ' +
      'once; it is stored encrypted and never returned again. Deliveries are signed with headers ' +
      '`webhook-id` (the event id), `webhook-timestamp` and `webhook-signature`. A tenant may have ' +
      'at most `WEBHOOK_MAX_PER_TENANT` (default 50) webhooks that are not revoked.',
  })
  @ApiBody({
    type: CreateWebhookDto,
    examples: {
      some_events: {
        summary: 'Candidate revisions and new versions',
        value: {
          name: 'ERP sync',
          endpoint_url: 'https://erp.example.com/hooks/grc',
          events: ['external_revision.staged', 'document.version_created'],
        },
      },
      all_events: {
        summary: 'Every event type',
        value: { name: 'Audit trail', endpoint_url: 'https://siem.example.com/grc', events: ['*'] },
      },
    },
  })
  @ApiResponse({ status: 201, type: CreatedWebhookView })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: invalid `name`, `endpoint_url` (not an absolute https URL, or with user-info) or `events` (empty, or an unknown event type), or an unknown field.',
    },
    {
      status: 409,
      codes: ['webhook_limit_reached'],
      description:
        '`webhook_limit_reached`: the tenant already has `WEBHOOK_MAX_PER_TENANT` (default 50) webhooks that are not revoked.',
    },
    413,
  )
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookDto,
  ): Promise<CreatedWebhookView> {
    return this.webhooks.create(principal.tenantId, body);
  }

  @Post('webhooks/:webhookId/status')
  @Audited('webhook.status', (req) => `webhook:${String(req.params['webhookId'])}`)
  @HttpCode(200)
  @Authorized(WRITE)
  @ApiOperation({
    summary: 'Change the status of a webhook',
    description:
      '`active` ⇄ `paused`; `revoked` is final. Pausing holds deliveries until re-activation; ' +
      'revoking cancels pending ones. Asking for the current status again is a no-op. A pause or ' +
      'revocation through this operation has `status_reason` `manual`; `active` clears the reason ' +
      '(also `gone` or `failing`, set when the service paused the webhook itself).',
  })
  @ApiBody({
    type: UpdateWebhookStatusDto,
    examples: {
      pause: { summary: 'Hold deliveries', value: { status: 'paused' } },
      activate: { summary: 'Resume deliveries', value: { status: 'active' } },
      revoke: { summary: 'Stop for good (irreversible)', value: { status: 'revoked' } },
    },
  })
  @ApiResponse({ status: 200, type: WebhookView })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: `status` is not one of active, paused, revoked, or webhookId is not a positive integer.',
    },
    { status: 404, description: '`not_found`: unknown webhook, or one of another tenant.' },
    {
      status: 409,
      codes: ['webhook_revoked'],
      description:
        '`webhook_revoked`: `active` or `paused` asked of a revoked webhook (`revoked` again is a 200 no-op).',
    },
    413,
  )
  setStatus(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId', ParseIdPipe) webhookId: number,
    @Body() body: UpdateWebhookStatusDto,
  ): Promise<WebhookView> {
    return this.webhooks.setStatus(principal.tenantId, webhookId, body.status);
  }

  @Get('webhook-deliveries')
  @Authorized(READ)
  @ApiOperation({
    summary: 'List recent deliveries',
    description:
      'Deliveries of all webhooks of the tenant, newest first (descending deliveryId), `limit` ' +
      '(default 50) per page; `next_cursor` reads the next, older page, down to the oldest.',
  })
  @ApiResponse({ status: 200, type: DeliveryListView })
  @ApiProblemResponses({
    status: 400,
    description:
      '`validation_failed`: `limit` not an integer in 1..100 (never clamped), or a cursor that is malformed or not of this list and tenant.',
  })
  listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListDeliveriesQuery,
  ): Promise<JsonText<DeliveryListView>> {
    return this.webhooks.listDeliveries(principal.tenantId, query);
  }

  @Post('webhook-deliveries/:deliveryId/replay')
  @Audited('delivery.replay', (req) => `delivery:${String(req.params['deliveryId'])}`)
  @HttpCode(200)
  @Authorized(WRITE)
  @ApiOperation({
    summary: 'Replay a delivery',
    description:
      'Requeues a `failed` or `retry` delivery of a webhook that is not revoked. It is sent again ' +
      'with the same `webhook-id` and body.',
  })
  @ApiResponse({ status: 200, type: ReplayView })
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
    @Param('deliveryId', ParseIdPipe) deliveryId: number,
  ): Promise<ReplayView> {
    return this.webhooks.replay(principal.tenantId, deliveryId);
  }
}
