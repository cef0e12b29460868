import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { SecretBox } from '../../common/crypto/secret-box.js';
import { legacyStatement } from '../../common/database/legacy-statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { isoTimestamp, jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
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
import { WEBHOOK_DELIVERIES_CHANNEL } from './outbox/outbox-channel.js';
import { WebhookOutbox } from './outbox/webhook-outbox.service.js';
import { WEBHOOK_TEST_EVENT } from '../events/event-catalog.js';
import {
  ATTEMPTS_SQL,
  DELIVERY_SQL,
  deliveryListIdentity,
  deliveryPage,
  type DeliveryFilter,
} from './delivery-history.js';
import type {
  CreateWebhookDto,
  CreatedWebhookView,
  DeliveryAttemptListView,
  DeliveryView,
  ReplayView,
  RotatedSecretView,
  TestEventView,
  UpdateWebhookDto,
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
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<WebhookView>>(WEBHOOK_PAGE_SQL, [tenantId, after, page.limit]),
    );
    return cursorPageOf(rows[0], identity);
  }

  /** GET /webhooks/{webhookId}: never the secret. */
  async get(tenantId: number, webhookId: number): Promise<WebhookView> {
    const [row] = await this.tx.readOnce(
      tenantId,
      legacyStatement<WebhookRow>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND tenant_id = $2`,
        [webhookId, tenantId],
      ),
    );
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
  async update(tenantId: number, webhookId: number, input: UpdateWebhookDto): Promise<WebhookView> {
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
      const m = this.tx.manager;
      const current = await this.lockLiveWebhook(tenantId, webhookId, 'NO KEY UPDATE');
      // the same endpoint written differently (`HTTP://H/x` for `http://h/x`) keeps its failure
      // record and back-off: rewriting a URL must not be a way around them
      const urlChanged =
        endpointUrl !== null && new URL(endpointUrl).href !== new URL(current.endpoint_url).href;
      const [row] = updatedRows<WebhookRow>(
        await m.query(
          `UPDATE webhooks
              SET name = COALESCE($3, name),
                  endpoint_url = COALESCE($4, endpoint_url),
                  events = COALESCE($5::text[], events),
                  consecutive_failures = CASE WHEN $6 THEN 0 ELSE consecutive_failures END,
                  failing_since = CASE WHEN $6 THEN NULL ELSE failing_since END,
                  updated_at = CASE WHEN (COALESCE($3, name), COALESCE($4, endpoint_url),
                                          COALESCE($5::text[], events))
                                         IS DISTINCT FROM (name, endpoint_url, events)
                                    THEN now() ELSE updated_at END
            WHERE id = $1 AND tenant_id = $2
            RETURNING ${WEBHOOK_COLUMNS}`,
          [webhookId, tenantId, input.name ?? null, endpointUrl, events, urlChanged],
        ),
      );
      if (urlChanged) {
        await this.makeDueNow(tenantId, webhookId, 'waiting');
      }
      return toWebhookView(row!);
    });
  }

  /**
   * Inside the caller's transaction: the webhook's pending deliveries that are `waiting` out a
   * retry delay (its back-off belonged to a URL a PATCH replaced) or `overdue` (held by a pause)
   * become due now, and the workers are woken.
   */
  private async makeDueNow(
    tenantId: number,
    webhookId: number,
    which: 'waiting' | 'overdue',
  ): Promise<void> {
    await this.tx.manager.query(
      `WITH released AS (
         UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
          WHERE webhook_id = $1 AND tenant_id = $2
            AND status IN ('queued', 'retry') AND next_attempt_at ${which === 'waiting' ? '>' : '<'} now()
         RETURNING 1
       )
       SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') AS notified`,
      [webhookId, tenantId],
    );
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
  ): Promise<RotatedSecretView> {
    const secret = mintWebhookSecret();
    const sealed = this.secretBox.seal(secret);
    return this.tx.run(tenantId, async () => {
      const m = this.tx.manager;
      await this.lockLiveWebhook(tenantId, webhookId, 'NO KEY UPDATE');
      const [row] = updatedRows<{ expires_at: string }>(
        await m.query(
          `UPDATE webhooks
              SET previous_secret_sealed = CASE WHEN $4::int > 0 THEN secret_sealed END,
                  previous_secret_expires_at =
                    CASE WHEN $4::int > 0 THEN now() + make_interval(secs => $4::int) END,
                  secret_sealed = $3,
                  updated_at = now()
            WHERE id = $1 AND tenant_id = $2
            RETURNING ${isoTimestamp('(now() + make_interval(secs => $4::int))')} AS expires_at`,
          [webhookId, tenantId, sealed, graceSeconds],
        ),
      );
      return { webhookId, secret, previous_secret_expires_at: row!.expires_at };
    });
  }

  /**
   * POST /webhooks/{webhookId}/test: a `webhook.test` event for this webhook alone, whatever its
   * `events`; delivered, retried and listed like any other (held while the webhook is paused).
   */
  sendTestEvent(tenantId: number, webhookId: number): Promise<TestEventView> {
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
    const [row]: Array<{ status: WebhookStatus; endpoint_url: string }> =
      await this.tx.manager.query(
        `SELECT status, endpoint_url FROM webhooks WHERE id = $1 AND tenant_id = $2 FOR ${mode}`,
        [webhookId, tenantId],
      );
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
        await this.makeDueNow(tenantId, webhookId, 'overdue');
      }
      return toWebhookView(updated!);
    });
  }

  /**
   * GET /webhook-deliveries: the tenant's deliveries matching `query`'s filters, newest first
   * (descending deliveryId), one page; one statement. Older deliveries are reached by walking
   * `next_cursor`, which is bound to the filters; deliveries created meanwhile have higher ids and
   * never shift the walk.
   */
  async listDeliveries(
    tenantId: number,
    query: DeliveryFilter & { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<DeliveryView>>> {
    const identity = deliveryListIdentity(tenantId, query);
    const after = Cursor.decode(identity, query.cursor)?.[0] ?? firstKey('DESC');
    const { sql, integers } = deliveryPage(tenantId, after, query.limit, query);
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<DeliveryView>>(sql, integers),
    );
    return cursorPageOf(rows[0], identity);
  }

  /** GET /webhook-deliveries/{deliveryId}: as listed; 404 for an unknown or foreign one. */
  async getDelivery(tenantId: number, deliveryId: number): Promise<DeliveryView> {
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<{ delivery: DeliveryView }>(DELIVERY_SQL, [tenantId, deliveryId]),
    );
    if (!rows[0]) throw new NotFoundError('delivery');
    return rows[0].delivery;
  }

  /** GET /webhook-deliveries/{deliveryId}/attempts: oldest first; 404 as `getDelivery`. */
  async listAttempts(tenantId: number, deliveryId: number): Promise<DeliveryAttemptListView> {
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<{ found: boolean; data: DeliveryAttemptListView['data'] }>(ATTEMPTS_SQL, [
        tenantId,
        deliveryId,
      ]),
    );
    if (!rows[0]?.found) throw new NotFoundError('delivery');
    return { data: rows[0].data };
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
