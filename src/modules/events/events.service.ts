import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { CatalogEventType, EventData, WEBHOOK_TEST_EVENT } from './event-catalog.js';
import { newEventId } from './event-id.js';
import type { EventType } from './event-types.js';

/** The channel the delivery worker listens on; a notification only means "look for due rows". */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

export interface EventEnvelope {
  id: string;
  type: CatalogEventType;
  timestamp: string;
  tenant_id: number;
  data: EventData<CatalogEventType>;
}

/**
 * The transactional outbox. An event, its deliveries and the wake-up notification commit or roll
 * back with the state change that caused them, so a webhook never hears of a change that did not
 * happen, nor misses one that did.
 */
@Injectable()
export class EventsService {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * Must run inside `TenantTransactions.run(tenantId, …)`: it joins the caller's transaction.
   * `along`: the change that caused the event, as one data-modifying statement (its own `$1…`
   * parameters, `RETURNING` what the caller needs) run in the SAME statement as the event — one
   * round trip for both. Its returned rows come back as JSON objects (format timestamps in SQL).
   * `last`: this is the transaction's last statement, sent with its COMMIT in one round trip
   * (`TenantTransactions.queryAndCommit`); the caller must not touch the database after it.
   */
  async publish<T extends EventType>(
    tenantId: number,
    type: T,
    /** Exactly the catalog's `data` of `type` (event-catalog.ts), which the OpenAPI document describes. */
    data: EventData<T>,
    along?: { sql: string; params: readonly unknown[] },
    { last = false }: { last?: boolean } = {},
  ): Promise<{ eventId: string; along: Array<Record<string, unknown>> }> {
    const envelope = this.envelope(tenantId, type, data);
    // One round trip. Paused webhooks get a (held) delivery too: the worker only claims deliveries
    // of active webhooks, and re-activation releases them. Revoked webhooks get nothing.
    const own = [envelope.id, tenantId, type, JSON.stringify(envelope)];
    const alongCte = along
      ? `along AS (${along.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + own.length}`)}), `
      : '';
    // a named statement: parsed and planned once per connection (the staging path's heaviest plan)
    const send = last ? this.tx.queryAndCommit.bind(this.tx) : this.tx.query.bind(this.tx);
    const rows = await send<{ along: Array<Record<string, unknown>> | null }>(
      `WITH ${alongCte}ev AS (
         INSERT INTO events (event_id, tenant_id, type, payload)
         VALUES ($1, $2, $3, $4::jsonb)
         RETURNING id
       ), d AS (
         INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
         SELECT $2, w.id, ev.id
           FROM webhooks w CROSS JOIN ev
          WHERE w.tenant_id = $2
            AND w.status IN ('active', 'paused')
            AND (w.events @> ARRAY[$3::text] OR w.events @> ARRAY['*'])
         RETURNING 1
       )
       SELECT CASE WHEN EXISTS (SELECT 1 FROM d)
                   THEN pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') END AS notified,
              ${along ? '(SELECT json_agg(along) FROM along)' : 'NULL::json'} AS along`,
      [...own, ...(along?.params ?? [])],
    );
    return { eventId: envelope.id, along: rows[0]?.along ?? [] };
  }

  /**
   * An event for one webhook only, whatever its `events` (a `webhook.test`): the event and its
   * single delivery, one statement, joining the caller's transaction like `publish`. The webhook
   * must be active or paused (a paused one holds it); null when it is not, and then nothing is
   * written. The caller holds a lock on the webhook row, so a revocation cannot slip in between.
   */
  async publishToWebhook(
    tenantId: number,
    webhookId: number,
    type: typeof WEBHOOK_TEST_EVENT,
    data: EventData<typeof WEBHOOK_TEST_EVENT>,
  ): Promise<{ eventId: string; deliveryId: number } | null> {
    const envelope = this.envelope(tenantId, type, data);
    const rows = await this.tx.query<{ delivery_id: string | null }>(
      `WITH w AS (
         SELECT id FROM webhooks
          WHERE id = $5 AND tenant_id = $2 AND status IN ('active', 'paused')
       ), ev AS (
         INSERT INTO events (event_id, tenant_id, type, payload)
         SELECT $1, $2, $3, $4::jsonb WHERE EXISTS (SELECT 1 FROM w)
         RETURNING id
       ), d AS (
         INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
         SELECT $2, w.id, ev.id FROM w CROSS JOIN ev
         RETURNING id
       )
       SELECT (SELECT id FROM d) AS delivery_id,
              CASE WHEN EXISTS (SELECT 1 FROM d)
                   THEN pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') END AS notified`,
      [envelope.id, tenantId, type, JSON.stringify(envelope), webhookId],
    );
    const deliveryId = rows[0]?.delivery_id;
    return deliveryId == null ? null : { eventId: envelope.id, deliveryId: Number(deliveryId) };
  }

  private envelope<T extends CatalogEventType>(
    tenantId: number,
    type: T,
    data: EventData<T>,
  ): EventEnvelope {
    return {
      id: newEventId(),
      type,
      timestamp: new Date().toISOString(),
      tenant_id: tenantId,
      data,
    };
  }
}
