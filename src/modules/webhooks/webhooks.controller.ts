import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { NoStore } from '../../common/http/no-store.decorator.js';
import { ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '../../common/http/params.js';
import { CursorPageQuery } from '../../common/pagination/page-query.js';
import { Audited } from '../audit/audited.decorator.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import {
  CreateWebhookRequest,
  RotateWebhookSecretRequest,
  UpdateWebhookRequest,
  UpdateWebhookStatusRequest,
} from './dto/webhook.request.js';
import {
  CreatedWebhookResponse,
  RotatedSecretResponse,
  TestEventResponse,
  WebhookListResponse,
  WebhookResponse,
} from './dto/webhook.response.js';
import { READ, WRITE } from './webhooks.access.js';
import { WebhooksService } from './webhooks.service.js';
import type { JsonText } from '../../common/http/json-text.js';
import { WebhooksDocs } from './webhooks.openapi.js';

@ApiTags('webhooks')
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get('webhooks')
  @Authorized(READ)
  @WebhooksDocs.list()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<WebhookListResponse>> {
    return this.webhooks.list(principal.tenantId, query);
  }

  @Post('webhooks')
  @NoStore()
  @Audited(
    'webhook.create',
    (_req, body) =>
      `webhook:${String((body as { webhookId?: number } | undefined)?.webhookId ?? '-')}`,
  )
  @Authorized(WRITE)
  @WebhooksDocs.create()
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookRequest,
  ): Promise<CreatedWebhookResponse> {
    return this.webhooks.create(principal.tenantId, body);
  }

  @Get('webhooks/:webhookId')
  @Authorized(READ)
  @WebhooksDocs.get()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId', ParseIdPipe) webhookId: number,
  ): Promise<WebhookResponse> {
    return this.webhooks.get(principal.tenantId, webhookId);
  }

  @Patch('webhooks/:webhookId')
  @Audited('webhook.update', (req) => `webhook:${String(req.params['webhookId'])}`)
  @Authorized(WRITE)
  @WebhooksDocs.update()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId', ParseIdPipe) webhookId: number,
    @Body() body: UpdateWebhookRequest,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(principal.tenantId, webhookId, body);
  }

  @Post('webhooks/:webhookId/secret/rotate')
  @NoStore()
  @Audited('webhook.rotate_secret', (req) => `webhook:${String(req.params['webhookId'])}`)
  @HttpCode(200)
  @Authorized(WRITE)
  @WebhooksDocs.rotateSecret()
  rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId', ParseIdPipe) webhookId: number,
    @Body() body: RotateWebhookSecretRequest,
  ): Promise<RotatedSecretResponse> {
    return this.webhooks.rotateSecret(principal.tenantId, webhookId, body.grace_period_seconds);
  }

  @Post('webhooks/:webhookId/test')
  @Audited('webhook.test', (req) => `webhook:${String(req.params['webhookId'])}`)
  @HttpCode(202)
  @Authorized(WRITE)
  @WebhooksDocs.sendTestEvent()
  sendTestEvent(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId', ParseIdPipe) webhookId: number,
  ): Promise<TestEventResponse> {
    return this.webhooks.sendTestEvent(principal.tenantId, webhookId);
  }

  @Post('webhooks/:webhookId/status')
  @Audited('webhook.status', (req) => `webhook:${String(req.params['webhookId'])}`)
  @HttpCode(200)
  @Authorized(WRITE)
  @WebhooksDocs.setStatus()
  setStatus(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId', ParseIdPipe) webhookId: number,
    @Body() body: UpdateWebhookStatusRequest,
  ): Promise<WebhookResponse> {
    return this.webhooks.setStatus(principal.tenantId, webhookId, body.status);
  }
}
