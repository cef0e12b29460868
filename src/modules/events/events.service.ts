import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { newEventId } from './event-id.js';
import type { EventType } from './event-types.js';

/** The channel the delivery worker listens on; a notification only means "look for due rows". */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  tenant_id: number;
  data: Record<string, unknown>;
}

/**
 * The transactional outbox. An event, its deliveries and the wake-up notification commit or roll
 * back with the state change that caused them, so a webhook never hears of a change that did not
 * happen, nor misses one that did.
 */
@Injectable()
export class EventsService {
  constructor(private readonly tx: TenantTransactions) {}

  /** Must run inside `TenantTransactions.run(tenantId, …)`: it joins the caller's transaction. */
  async publish(
    tenantId: number,
    type: EventType,
    data: Record<string, unknown>,
  ): Promise<{ eventId: string }> {
    const envelope: EventEnvelope = {
      id: newEventId(),
      type,
      timestamp: new Date().toISOString(),
      tenant_id: tenantId,
      data,
    };
    // One round trip. Paused webhooks get a (held) delivery too: the worker only claims deliveries
    // of active webhooks, and re-activation releases them. Revoked webhooks get nothing.
    await this.tx.manager.query(
      `WITH ev AS (
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
                   THEN pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') END AS notified`,
      [envelope.id, tenantId, type, JSON.stringify(envelope)],
    );
    return { eventId: envelope.id };
  }
}
