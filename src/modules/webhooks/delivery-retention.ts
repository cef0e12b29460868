import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';

/** A delivery in one of these states may still be sent: it is never deleted. */
const PENDING = `('queued', 'sending', 'retry')`;

export interface PrunedEvents {
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * Deletes events older than the retention window together with their deliveries and attempts,
 * one batch of events per call, unless one of their deliveries is still pending (queued, sending
 * or retry, e.g. held by a paused webhook): such an event stays with all its deliveries, so a
 * listed delivery always has its event. The deliveries are locked before their state is trusted,
 * so a replay that requeues one at the same moment either wins (the event stays) or waits.
 */
@Injectable()
export class DeliveryRetention {
  constructor(private readonly tx: TenantTransactions) {}

  async pruneBatch(olderThanSeconds: number, batch: number): Promise<PrunedEvents> {
    return this.tx.runAsSystem(async () => {
      const m = this.tx.manager;
      const candidates: Array<{ id: string }> = await m.query(
        `SELECT e.id FROM events e
          WHERE e.created_at < now() - make_interval(secs => $1)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                             WHERE d.event_id = e.id AND d.status IN ${PENDING})
          ORDER BY e.created_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED`,
        [olderThanSeconds, batch],
      );
      if (candidates.length === 0) return { events: 0, deliveries: 0, attempts: 0 };
      const ids = candidates.map((c) => c.id);
      // locked: the status read is the latest committed one, and stays so until this commits
      const deliveries: Array<{ id: string; event_id: string; status: string }> = await m.query(
        `SELECT id, event_id, status FROM webhook_deliveries
          WHERE event_id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`,
        [ids],
      );
      const kept = new Set(
        deliveries.filter((d) => PENDING.includes(`'${d.status}'`)).map((d) => d.event_id),
      );
      const events = ids.filter((id) => !kept.has(id));
      const doomed = deliveries.filter((d) => !kept.has(d.event_id)).map((d) => d.id);
      const [, attempts]: [unknown, number] = await m.query(
        `DELETE FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::bigint[])`,
        [doomed],
      );
      const [, deleted]: [unknown, number] = await m.query(
        `DELETE FROM webhook_deliveries WHERE id = ANY($1::bigint[])`,
        [doomed],
      );
      const [, removed]: [unknown, number] = await m.query(
        `DELETE FROM events WHERE id = ANY($1::bigint[])`,
        [events],
      );
      return { events: removed, deliveries: deleted, attempts };
    });
  }
}
