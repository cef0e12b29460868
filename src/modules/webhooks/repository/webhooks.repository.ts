import { Injectable } from '@nestjs/common';
import { fragment, sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import { PageReads } from '../../../common/database/page-reads.js';
import { isoTimestamp, jsonObjectText, jsonValue as v } from '../../../common/database/sql-json.js';
import {
  afterKey,
  keysetPage,
  type KeysetPageRow,
  type KeysetPageText,
} from '../../../common/pagination/keyset-page.js';
import type { WebhookResponse } from '../dto/webhook.response.js';
import type { WebhookStatus, WebhookStatusReason } from '../entities/webhook.entity.js';

export interface WebhookRow {
  id: number;
  name: string;
  endpoint_url: string;
  events: string[];
  status: WebhookStatus;
  status_reason: WebhookStatusReason | null;
  created_at: Date;
  updated_at: Date;
}

/** What a PATCH writes; null leaves a field as it is. */
export interface WebhookChanges {
  name: string | null;
  endpointUrl: string | null;
  events: string[] | null;
  /** A new endpoint: its predecessor's failure record is cleared. */
  urlChanged: boolean;
}

const WEBHOOK_COLUMNS = fragment(
  'id, name, endpoint_url, events, status, status_reason, created_at, updated_at',
);

/** Serialises the creations of one tenant's webhooks (the per-tenant limit); any fixed key. */
const CREATE_LOCK_CLASS = 0x77686b;

/** One webhook as listed: never the secret. */
const WEBHOOK_ITEM = jsonObjectText({
  webhookId: v.integer('r.id'),
  name: v.text('r.name'),
  endpoint_url: v.text('r.endpoint_url'),
  events: v.text('r.events'),
  status: v.text('r.status'),
  status_reason: v.text('r.status_reason'),
  created_at: v.timestamp('r.created_at'),
  updated_at: v.timestamp('r.updated_at'),
});

/** The `webhooks` table; statements run in the caller's tenant transaction unless said. */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly pages: PageReads,
  ) {}

  /**
   * Waits for the tenant's other creations to commit: two racing would both count the same
   * webhooks. The INSERT after it (a statement of its own, so a snapshot taken after the first
   * committed) sees the first one's webhook.
   */
  async lockCreations(tenantId: number): Promise<void> {
    await this.tx.query(sql`SELECT pg_advisory_xact_lock(${CREATE_LOCK_CLASS}, ${tenantId})`);
  }

  /** The new webhook; undefined when the tenant already has `limit` that are not revoked. */
  async insertWithinLimit(
    tenantId: number,
    webhook: { name: string; endpointUrl: string; events: string[]; secretSealed: Buffer },
    limit: number,
  ): Promise<WebhookRow | undefined> {
    const [row] = await this.tx.query(
      sql<WebhookRow>`INSERT INTO webhooks (tenant_id, name, endpoint_url, events, secret_sealed)
         SELECT ${tenantId}, ${webhook.name}, ${webhook.endpointUrl}, ${webhook.events}::text[], ${webhook.secretSealed}
          WHERE (SELECT count(*) FROM webhooks
                  WHERE tenant_id = ${tenantId} AND status <> 'revoked') < ${limit}
         RETURNING ${WEBHOOK_COLUMNS}`,
    );
    return row;
  }

  /**
   * One page of the tenant's webhooks, oldest first, after the webhookId `after`; one read-only
   * statement in a transaction of its own. Never the secret.
   */
  async page(
    tenantId: number,
    after: number,
    limit: number,
  ): Promise<KeysetPageRow<WebhookResponse> | undefined> {
    const [row] = await this.pages.read(
      tenantId,
      limit,
      sql<KeysetPageText<WebhookResponse>>`${keysetPage({
        rows: sql`SELECT w.id AS k, w.id, w.name, w.endpoint_url, w.events, w.status, w.status_reason,
                w.created_at, w.updated_at
           FROM webhooks w
          WHERE w.tenant_id = ${tenantId} AND ${afterKey('w.id', 'ASC', after)}
          ORDER BY w.id LIMIT ${limit}::int + 1`,
        item: WEBHOOK_ITEM,
        order: 'ASC',
        limit,
      })}`,
    );
    return row;
  }

  /** The tenant's webhook, read in a transaction of its own (one round trip). */
  async find(tenantId: number, webhookId: number): Promise<WebhookRow | undefined> {
    const [row] = await this.tx.readOnce(
      tenantId,
      sql<WebhookRow>`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ${webhookId} AND tenant_id = ${tenantId}`,
    );
    return row;
  }

  /**
   * Locks the tenant's webhook: its status and URL. Neither mode holds back the key-share locks
   * of deliveries being inserted for it meanwhile.
   */
  async lockStatus(
    tenantId: number,
    webhookId: number,
    mode: 'NO KEY UPDATE' | 'SHARE',
  ): Promise<{ status: WebhookStatus; endpoint_url: string } | undefined> {
    const [row] = await this.tx.query(
      sql<{
        status: WebhookStatus;
        endpoint_url: string;
      }>`SELECT status, endpoint_url FROM webhooks WHERE id = ${webhookId} AND tenant_id = ${tenantId} FOR ${fragment(mode)}`,
    );
    return row;
  }

  /** The tenant's webhook, locked for an update of its status. */
  async lockForUpdate(tenantId: number, webhookId: number): Promise<WebhookRow | undefined> {
    const [row] = await this.tx.query(
      sql<WebhookRow>`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ${webhookId} AND tenant_id = ${tenantId} FOR UPDATE`,
    );
    return row;
  }

  /**
   * Writes a PATCH: `updated_at` moves only when a value changes; a new URL clears the failure
   * record. The webhook is locked by the caller.
   */
  async update(tenantId: number, webhookId: number, changes: WebhookChanges): Promise<WebhookRow> {
    const { name, endpointUrl, events, urlChanged } = changes;
    const [row] = await this.tx.query(
      sql<WebhookRow>`UPDATE webhooks
              SET name = COALESCE(${name}, name),
                  endpoint_url = COALESCE(${endpointUrl}, endpoint_url),
                  events = COALESCE(${events}::text[], events),
                  consecutive_failures = CASE WHEN ${urlChanged} THEN 0 ELSE consecutive_failures END,
                  failing_since = CASE WHEN ${urlChanged} THEN NULL ELSE failing_since END,
                  updated_at = CASE WHEN (COALESCE(${name}, name), COALESCE(${endpointUrl}, endpoint_url),
                                          COALESCE(${events}::text[], events))
                                         IS DISTINCT FROM (name, endpoint_url, events)
                                    THEN now() ELSE updated_at END
            WHERE id = ${webhookId} AND tenant_id = ${tenantId}
            RETURNING ${WEBHOOK_COLUMNS}`,
    );
    return row!;
  }

  /**
   * A new sealed secret; the one it replaces keeps signing for `graceSeconds` (none: dropped).
   * Answers when it stops, as ISO text (now, without a grace). The webhook is locked by the caller.
   */
  async rotateSecret(
    tenantId: number,
    webhookId: number,
    secretSealed: Buffer,
    graceSeconds: number,
  ): Promise<string> {
    const [row] = await this.tx.query(
      sql<{ expires_at: string }>`UPDATE webhooks
              SET previous_secret_sealed = CASE WHEN ${graceSeconds}::int > 0 THEN secret_sealed END,
                  previous_secret_expires_at =
                    CASE WHEN ${graceSeconds}::int > 0 THEN now() + make_interval(secs => ${graceSeconds}::int) END,
                  secret_sealed = ${secretSealed},
                  updated_at = now()
            WHERE id = ${webhookId} AND tenant_id = ${tenantId}
            RETURNING ${fragment(isoTimestamp('COALESCE(previous_secret_expires_at, now())'))} AS expires_at`,
    );
    return row!.expires_at;
  }

  /**
   * Sets the status: `active` clears the reason and the failure record, anything else is
   * `manual`. The webhook is locked by the caller.
   */
  async setStatus(tenantId: number, webhookId: number, status: WebhookStatus): Promise<WebhookRow> {
    const active = status === 'active';
    const [row] = await this.tx.query(
      sql<WebhookRow>`UPDATE webhooks
              SET status = ${status},
                  status_reason = CASE WHEN ${active} THEN NULL ELSE 'manual' END,
                  failing_since = CASE WHEN ${active} THEN NULL ELSE failing_since END,
                  consecutive_failures = CASE WHEN ${active} THEN 0
                                              ELSE consecutive_failures END,
                  updated_at = now()
            WHERE id = ${webhookId} AND tenant_id = ${tenantId}
            RETURNING ${WEBHOOK_COLUMNS}`,
    );
    return row!;
  }
}
