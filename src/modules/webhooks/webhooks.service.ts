import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { SecretBox } from '../../common/crypto/secret-box.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import type { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import {
  cursorPageOf,
  firstKey,
  keysetAfter,
  keysetPageSql,
  type KeysetPageRow,
} from '../../common/pagination/keyset-page.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../events/events.service.js';
import type {
  CreateWebhookDto,
  CreatedWebhookView,
  DeliveryView,
  ReplayView,
  WebhookView,
} from './dto/webhook.dto.js';
import type { WebhookStatus, WebhookStatusReason } from './entities/webhook.entity.js';
import { updatedRows } from './sql-rows.js';
import {
  DeliveryNotReplayableError,
  WebhookLimitReachedError,
  WebhookRevokedError,
} from './webhooks.errors.js';

interface WebhookRow {
  id: number;
  name: string;
  endpoint_url: string;
  events: string[];
  status: WebhookStatus;
  status_reason: WebhookStatusReason | null;
  created_at: Date;
  updated_at: Date;
}

const WEBHOOK_COLUMNS =
  'id, name, endpoint_url, events, status, status_reason, created_at, updated_at';

/** Serialises the creations of one tenant's webhooks (the per-tenant limit); any fixed key. */
const CREATE_LOCK_CLASS = 0x77686b;

/** $1 tenant, $2 the webhookId after which the page starts, $3 limit. Never the secret. */
const WEBHOOK_PAGE_SQL = keysetPageSql({
  rows: `SELECT w.id AS k, w.id, w.name, w.endpoint_url, w.events, w.status, w.status_reason,
                w.created_at, w.updated_at
           FROM webhooks w
          WHERE w.tenant_id = $1 AND ${keysetAfter('w.id', 'ASC', '$2::bigint')}
          ORDER BY w.id LIMIT $3::int + 1`,
  item: jsonObjectText({
    webhookId: v.integer('r.id'),
    name: v.text('r.name'),
    endpoint_url: v.text('r.endpoint_url'),
    events: v.text('r.events'),
    status: v.text('r.status'),
    status_reason: v.text('r.status_reason'),
    created_at: v.timestamp('r.created_at'),
    updated_at: v.timestamp('r.updated_at'),
  }),
  order: 'ASC',
  limit: '$3::int',
});

/**
 * $1 tenant, $2 the deliveryId before which the page starts (newest first), $3 limit. A `sending`
 * row whose lease lapsed while its webhook is paused or revoked is shown as what it will be.
 */
const DELIVERY_PAGE_SQL = keysetPageSql({
  rows: `SELECT d.id AS k, d.id, d.webhook_id, e.event_id, e.type AS event_type,
                CASE WHEN d.status = 'sending' AND w.status <> 'active'
                          AND d.lease_expires_at < now()
                     THEN CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END
                     ELSE d.status END AS status,
                d.attempts, d.last_attempt_at,
                CASE WHEN d.status IN ('queued', 'retry', 'sending') THEN d.next_attempt_at END
                  AS next_attempt_at,
                d.last_response_status, d.last_error, d.created_at
           FROM webhook_deliveries d
           JOIN events e ON e.id = d.event_id
           JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.tenant_id = $1 AND ${keysetAfter('d.id', 'DESC', '$2::bigint')}
          ORDER BY d.id DESC LIMIT $3::int + 1`,
  item: jsonObjectText({
    deliveryId: v.integer('r.id'),
    webhookId: v.integer('r.webhook_id'),
    event_id: v.text('r.event_id'),
    event_type: v.text('r.event_type'),
    status: v.text('r.status'),
    attempts: v.integer('r.attempts'),
    last_attempt_at: v.timestamp('r.last_attempt_at'),
    next_attempt_at: v.timestamp('r.next_attempt_at'),
    last_response_status: v.integer('r.last_response_status'),
    last_error: v.text('r.last_error'),
    created_at: v.timestamp('r.created_at'),
  }),
  order: 'DESC',
  limit: '$3::int',
});

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
  ) {}

  async create(tenantId: number, input: CreateWebhookDto): Promise<CreatedWebhookView> {
    const endpointUrl = this.validateEndpointUrl(input.endpoint_url);
    const events = [...new Set(input.events)];
    const secret = mintWebhookSecret();
    const sealed = this.secretBox.seal(secret);
    const limit = this.config.WEBHOOK_MAX_PER_TENANT;
    const row = await this.tx.run(tenantId, async () => {
      const m = this.tx.manager;
      // Two creations racing would both count the same webhooks: the second waits here, and its
      // INSERT (a statement of its own, so a snapshot taken after the first committed) sees it.
      await m.query('SELECT pg_advisory_xact_lock($1, $2)', [CREATE_LOCK_CLASS, tenantId]);
      const rows: WebhookRow[] = await m.query(
        `INSERT INTO webhooks (tenant_id, name, endpoint_url, events, secret_sealed)
         SELECT $1, $2, $3, $4::text[], $5
          WHERE (SELECT count(*) FROM webhooks
                  WHERE tenant_id = $1 AND status <> 'revoked') < $6
         RETURNING ${WEBHOOK_COLUMNS}`,
        [tenantId, input.name, endpointUrl, events, sealed, limit],
      );
      if (!rows[0]) throw new WebhookLimitReachedError(limit);
      return rows[0];
    });
    return { ...toWebhookView(row), secret };
  }

  /** GET /webhooks: the tenant's webhooks, oldest first, one page; one statement. */
  async list(
    tenantId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<WebhookView>>> {
    const identity = { tenantId, list: 'webhooks' };
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    const rows = await this.tx.readOnce<KeysetPageRow<WebhookView>>(tenantId, WEBHOOK_PAGE_SQL, [
      tenantId,
      after,
      page.limit,
    ]);
    return cursorPageOf(rows[0], identity);
  }

  /**
   * Applies the status state machine under a row lock on the webhook, so two concurrent changes
   * serialise. Revoked is final; asking for the current status again is a no-op (a webhook the
   * worker paused keeps its `gone` or `failing` reason). A caller's pause or revocation is
   * `manual`; re-activation clears the reason and the endpoint's failure record, so it starts
   * again with every slot and a fresh `WEBHOOK_DISABLE_AFTER` window.
   */
  setStatus(tenantId: number, webhookId: number, status: WebhookStatus): Promise<WebhookView> {
    return this.tx.run(tenantId, async () => {
      const m = this.tx.manager;
      const [current]: WebhookRow[] = await m.query(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND tenant_id = $2 FOR UPDATE`,
        [webhookId, tenantId],
      );
      if (!current) throw new NotFoundError('webhook');
      if (current.status === status) return toWebhookView(current);
      if (current.status === 'revoked') throw new WebhookRevokedError();

      const [updated] = updatedRows<WebhookRow>(
        await m.query(
          `UPDATE webhooks
              SET status = $3,
                  status_reason = CASE WHEN $3 = 'active' THEN NULL ELSE 'manual' END,
                  failing_since = CASE WHEN $3 = 'active' THEN NULL ELSE failing_since END,
                  consecutive_failures = CASE WHEN $3 = 'active' THEN 0
                                              ELSE consecutive_failures END,
                  updated_at = now()
            WHERE id = $1 AND tenant_id = $2
            RETURNING ${WEBHOOK_COLUMNS}`,
          [webhookId, tenantId, status],
        ),
      );
      if (status === 'revoked') {
        // An attempt already in flight finishes; the worker then cancels it unless it succeeded.
        await m.query(
          `UPDATE webhook_deliveries
              SET status = 'cancelled', lease_expires_at = NULL, updated_at = now()
            WHERE webhook_id = $1 AND tenant_id = $2
              AND (status IN ('queued', 'retry')
                   OR (status = 'sending' AND lease_expires_at < now()))`,
          [webhookId, tenantId],
        );
      } else if (status === 'active') {
        // Release what was held while paused and wake the workers; the claim still gives the
        // endpoint no more than its in-flight limit at once.
        await m.query(
          `WITH released AS (
             UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
              WHERE webhook_id = $1 AND tenant_id = $2
                AND status IN ('queued', 'retry') AND next_attempt_at < now()
             RETURNING 1
           )
           SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') AS notified`,
          [webhookId, tenantId],
        );
      }
      return toWebhookView(updated!);
    });
  }

  /**
   * GET /webhook-deliveries: the tenant's deliveries, newest first (descending deliveryId), one
   * page; one statement. Older deliveries are reached by walking `next_cursor`.
   */
  async listDeliveries(
    tenantId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<DeliveryView>>> {
    const identity = { tenantId, list: 'webhook_deliveries' };
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('DESC');
    const rows = await this.tx.readOnce<KeysetPageRow<DeliveryView>>(tenantId, DELIVERY_PAGE_SQL, [
      tenantId,
      after,
      page.limit,
    ]);
    return cursorPageOf(rows[0], identity);
  }

  /**
   * Requeues a failed or retry delivery. The row lock makes it exclusive with the worker's claim
   * (`FOR UPDATE SKIP LOCKED`): either the worker has it (then it is `sending`, not replayable) or
   * this does, and the worker skips it until the replay commits.
   */
  replay(tenantId: number, deliveryId: number): Promise<ReplayView> {
    return this.tx.run(tenantId, async () => {
      const m = this.tx.manager;
      const [row]: { status: string; webhook_status: WebhookStatus }[] = await m.query(
        `SELECT d.status, w.status AS webhook_status
           FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.id = $1 AND d.tenant_id = $2
          FOR UPDATE OF d`,
        [deliveryId, tenantId],
      );
      if (!row) throw new NotFoundError('delivery');
      if (row.webhook_status === 'revoked') throw new WebhookRevokedError();
      if (row.status !== 'failed' && row.status !== 'retry') {
        throw new DeliveryNotReplayableError(row.status);
      }
      await m.query(
        `UPDATE webhook_deliveries
            SET status = 'queued', next_attempt_at = now(), updated_at = now()
          WHERE id = $1 AND tenant_id = $2`,
        [deliveryId, tenantId],
      );
      await m.query(`SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '')`);
      return { deliveryId, status: 'queued' as const };
    });
  }

  private validateEndpointUrl(value: string): string {
    const refuse = (message: string): never => {
      throw new ValidationFailedError([{ field: 'endpoint_url', message }]);
    };
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return refuse('endpoint_url must be an absolute URL');
    }
    const allowHttp = this.config.WEBHOOK_ALLOW_HTTP;
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
      refuse(
        allowHttp
          ? 'endpoint_url must be an http or https URL'
          : 'endpoint_url must be an https URL',
      );
    }
    if (url.username !== '' || url.password !== '') {
      refuse('endpoint_url must not contain user information');
    }
    if (url.hostname === '') refuse('endpoint_url must have a host');
    if (/\s/.test(value)) refuse('endpoint_url must not contain whitespace');
    return value;
  }
}

function toWebhookView(row: WebhookRow): WebhookView {
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
