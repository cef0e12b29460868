import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import {
  DeliveryRetentionRepository,
  PENDING_STATUSES,
} from './repository/delivery-retention.repository.js';

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
  constructor(
    private readonly tx: TenantTransactions,
    private readonly retention: DeliveryRetentionRepository,
  ) {}

  async pruneBatch(olderThanSeconds: number, batch: number): Promise<PrunedEvents> {
    return this.tx.runAsSystem(async () => {
      const ids = await this.retention.lockPrunableEvents(olderThanSeconds, batch);
      if (ids.length === 0) return { events: 0, deliveries: 0, attempts: 0 };
      // locked: the status read is the latest committed one, and stays so until this commits
      const deliveries = await this.retention.lockDeliveriesOf(ids);
      const pending = new Set<string>(PENDING_STATUSES);
      const kept = new Set(deliveries.filter((d) => pending.has(d.status)).map((d) => d.event_id));
      const events = ids.filter((id) => !kept.has(id));
      const doomed = deliveries.filter((d) => !kept.has(d.event_id)).map((d) => d.id);
      const attempts = await this.retention.deleteAttemptsOf(doomed);
      const deleted = await this.retention.deleteDeliveries(doomed);
      const removed = await this.retention.deleteEvents(events);
      return { events: removed, deliveries: deleted, attempts };
    });
  }
}
