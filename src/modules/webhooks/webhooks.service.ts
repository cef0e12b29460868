import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { SecretBox } from '../../common/crypto/secret-box.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import type { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import { cursorPageOf, firstKey } from '../../common/pagination/keyset-page.js';
import { WebhookOutbox } from './outbox/webhook-outbox.service.js';
import { WEBHOOK_TEST_EVENT } from '../events/event-catalog.js';
import type { CreateWebhookRequest, UpdateWebhookRequest } from './dto/webhook.request.js';
import type {
  CreatedWebhookResponse,
  RotatedSecretResponse,
  TestEventResponse,
  WebhookResponse,
} from './dto/webhook.response.js';
import { validEndpointUrl } from './endpoint-url.js';
import type { WebhookStatus } from './entities/webhook.entity.js';
import { DeliveriesRepository } from './repository/deliveries.repository.js';
import { type WebhookRow, WebhooksRepository } from './repository/webhooks.repository.js';
import { WebhookLimitReachedError, WebhookRevokedError } from './webhooks.errors.js';

/** Standard Webhooks secret: `whsec_` + standard padded base64 of 32 random bytes. */
export function mintWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

@Injectable()
export class WebhooksService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly config: AppConfig,
    private readonly secretBox: SecretBox,
    private readonly events: WebhookOutbox,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: DeliveriesRepository,
  ) {}

  async create(tenantId: number, input: CreateWebhookRequest): Promise<CreatedWebhookResponse> {
    const endpointUrl = this.validateEndpointUrl(input.endpoint_url);
    const events = [...new Set(input.events)];
    const secret = mintWebhookSecret();
    const secretSealed = this.secretBox.seal(secret);
    const limit = this.config.WEBHOOK_MAX_PER_TENANT;
    const row = await this.tx.run(tenantId, async () => {
      // two creations racing would both count the same webhooks: the second waits here
      await this.webhooks.lockCreations(tenantId);
      const created = await this.webhooks.insertWithinLimit(
        tenantId,
        { name: input.name, endpointUrl, events, secretSealed },
        limit,
      );
      if (!created) throw new WebhookLimitReachedError(limit);
      return created;
    });
    return { ...toWebhookView(row), secret };
  }

  /** GET /webhooks: the tenant's webhooks, oldest first, one page; one statement. */
  async list(
    tenantId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<WebhookResponse>>> {
    const identity = { tenantId, list: 'webhooks' };
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    return cursorPageOf(await this.webhooks.page(tenantId, after, page.limit), identity);
  }

  /** GET /webhooks/{webhookId}: never the secret. */
  async get(tenantId: number, webhookId: number): Promise<WebhookResponse> {
    const row = await this.webhooks.find(tenantId, webhookId);
    if (!row) throw new NotFoundError('webhook');
    return toWebhookView(row);
  }

  /**
   * PATCH /webhooks/{webhookId}: `name`, `endpoint_url`, `events`, validated as on creation. The
   * worker reads the URL when it claims a delivery, so every delivery not yet claimed goes to the
   * new one. A new URL is a new endpoint: the old one's failure record (which halves its slots and
   * leads to `failing`) is cleared and deliveries waiting out a retry delay are due at once.
   * Sending the current values again changes nothing, `updated_at` included.
   */
  async update(
    tenantId: number,
    webhookId: number,
    input: UpdateWebhookRequest,
  ): Promise<WebhookResponse> {
    if (
      input.name === undefined &&
      input.endpoint_url === undefined &&
      input.events === undefined
    ) {
      throw new ValidationFailedError([
        { field: 'body', message: 'at least one of name, endpoint_url, events is required' },
      ]);
    }
    const endpointUrl =
      input.endpoint_url === undefined ? null : this.validateEndpointUrl(input.endpoint_url);
    const events = input.events === undefined ? null : [...new Set(input.events)];
    return this.tx.run(tenantId, async () => {
      const current = await this.lockLiveWebhook(tenantId, webhookId, 'NO KEY UPDATE');
      // the same endpoint written differently (`HTTP://H/x` for `http://h/x`) keeps its failure
      // record and back-off: rewriting a URL must not be a way around them
      const urlChanged =
        endpointUrl !== null && new URL(endpointUrl).href !== new URL(current.endpoint_url).href;
      const row = await this.webhooks.update(tenantId, webhookId, {
        name: input.name ?? null,
        endpointUrl,
        events,
        urlChanged,
      });
      // its back-off belonged to the URL this PATCH replaced
      if (urlChanged) await this.deliveries.makeDueNow(tenantId, webhookId, 'waiting');
      return toWebhookView(row);
    });
  }

  /**
   * POST /webhooks/{webhookId}/secret/rotate: a new secret, sealed; the one it replaces keeps
   * signing (next to it) for `graceSeconds`. Whatever an earlier rotation kept is dropped, so its
   * grace ends at once. The new secret is in the answer only.
   */
  async rotateSecret(
    tenantId: number,
    webhookId: number,
    graceSeconds: number,
  ): Promise<RotatedSecretResponse> {
    const secret = mintWebhookSecret();
    const sealed = this.secretBox.seal(secret);
    return this.tx.run(tenantId, async () => {
      await this.lockLiveWebhook(tenantId, webhookId, 'NO KEY UPDATE');
      const expiresAt = await this.webhooks.rotateSecret(tenantId, webhookId, sealed, graceSeconds);
      return { webhookId, secret, previous_secret_expires_at: expiresAt };
    });
  }

  /**
   * POST /webhooks/{webhookId}/test: a `webhook.test` event for this webhook alone, whatever its
   * `events`; delivered, retried and listed like any other (held while the webhook is paused).
   */
  sendTestEvent(tenantId: number, webhookId: number): Promise<TestEventResponse> {
    return this.tx.run(tenantId, async () => {
      // a share lock: a revocation waits until the delivery is committed, then cancels it
      await this.lockLiveWebhook(tenantId, webhookId, 'SHARE');
      const sent = await this.events.publishToWebhook(tenantId, webhookId, WEBHOOK_TEST_EVENT, {
        webhookId,
      });
      // the lock holds the webhook active or paused
      if (!sent) throw new Error(`webhook ${webhookId} changed under its lock`);
      return { deliveryId: sent.deliveryId, event_id: sent.eventId };
    });
  }

  /**
   * Locks the tenant's webhook for the transaction: 404 if unknown, 409 if revoked. Neither mode
   * holds back the key-share locks of deliveries being inserted for it meanwhile (publish).
   */
  private async lockLiveWebhook(
    tenantId: number,
    webhookId: number,
    mode: 'NO KEY UPDATE' | 'SHARE',
  ): Promise<{ endpoint_url: string }> {
    const row = await this.webhooks.lockStatus(tenantId, webhookId, mode);
    if (!row) throw new NotFoundError('webhook');
    if (row.status === 'revoked') throw new WebhookRevokedError();
    return row;
  }

  /**
   * Applies the status state machine under a row lock on the webhook, so two concurrent changes
   * serialise. Revoked is final; asking for the current status again is a no-op (a webhook the
   * worker paused keeps its `gone` or `failing` reason). A caller's pause or revocation is
   * `manual`; re-activation clears the reason and the endpoint's failure record, so it starts
   * again with every slot and a fresh `WEBHOOK_DISABLE_AFTER` window.
   */
  setStatus(tenantId: number, webhookId: number, status: WebhookStatus): Promise<WebhookResponse> {
    return this.tx.run(tenantId, async () => {
      const current = await this.webhooks.lockForUpdate(tenantId, webhookId);
      if (!current) throw new NotFoundError('webhook');
      if (current.status === status) return toWebhookView(current);
      if (current.status === 'revoked') throw new WebhookRevokedError();

      const updated = await this.webhooks.setStatus(tenantId, webhookId, status);
      if (status === 'revoked') {
        // An attempt already in flight finishes; the worker then cancels it unless it succeeded.
        await this.deliveries.cancelPending(tenantId, webhookId);
      } else if (status === 'active') {
        // Release what was held while paused and wake the workers; the claim still gives the
        // endpoint no more than its in-flight limit at once.
        await this.deliveries.makeDueNow(tenantId, webhookId, 'overdue');
      }
      return toWebhookView(updated);
    });
  }

  private validateEndpointUrl(value: string): string {
    return validEndpointUrl(value, this.config.WEBHOOK_ALLOW_HTTP);
  }
}

function toWebhookView(row: WebhookRow): WebhookResponse {
  return {
    webhookId: row.id,
    name: row.name,
    endpoint_url: row.endpoint_url,
    events: row.events,
    status: row.status,
    status_reason: row.status_reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
