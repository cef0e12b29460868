import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError } from '../../common/http/app-error.js';
import { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import { cursorPageOf, firstKey, pageArray } from '../../common/pagination/keyset-page.js';
import {
  type DeliveryFilter,
  deliveryListIdentity,
  encodeDeliveryFilter,
} from './delivery-filter.js';
import type {
  DeliveryAttemptListResponse,
  DeliveryResponse,
  ReplayResponse,
} from './dto/delivery.response.js';
import { DeliveriesRepository } from './repository/deliveries.repository.js';
import { DeliveryHistoryRepository } from './repository/delivery-history.repository.js';
import { DeliveryNotReplayableError, WebhookRevokedError } from './webhooks.errors.js';

/** The delivery history of a tenant's webhooks, and replays. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly history: DeliveryHistoryRepository,
    private readonly deliveries: DeliveriesRepository,
  ) {}

  /**
   * GET /webhook-deliveries: the tenant's deliveries matching `query`'s filters, newest first
   * (descending deliveryId), one page; one statement. Older deliveries are reached by walking
   * `next_cursor`, which is bound to the filters; deliveries created meanwhile have higher ids and
   * never shift the walk.
   */
  async listDeliveries(
    tenantId: number,
    query: DeliveryFilter & { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<DeliveryResponse>>> {
    const identity = deliveryListIdentity(tenantId, query);
    const after = Cursor.decode(identity, query.cursor)?.[0] ?? firstKey('DESC');
    const filter = encodeDeliveryFilter(query);
    return cursorPageOf(await this.history.page(tenantId, after, query.limit, filter), identity);
  }

  /** GET /webhook-deliveries/{deliveryId}: as listed; 404 for an unknown or foreign one. */
  async getDelivery(tenantId: number, deliveryId: number): Promise<DeliveryResponse> {
    const delivery = await this.history.find(tenantId, deliveryId);
    if (!delivery) throw new NotFoundError('delivery');
    return delivery;
  }

  /** GET /webhook-deliveries/{deliveryId}/attempts: oldest first; 404 as `getDelivery`. */
  async listAttempts(
    tenantId: number,
    deliveryId: number,
  ): Promise<JsonText<DeliveryAttemptListResponse>> {
    const row = await this.history.attempts(tenantId, deliveryId);
    if (!row?.found) throw new NotFoundError('delivery');
    return new JsonText('{"data":', ...pageArray(row), '}');
  }

  /**
   * Requeues a failed or retry delivery. The row lock makes it exclusive with the worker's claim
   * (`FOR UPDATE SKIP LOCKED`): either the worker has it (then it is `sending`, not replayable) or
   * this does, and the worker skips it until the replay commits.
   */
  replay(tenantId: number, deliveryId: number): Promise<ReplayResponse> {
    return this.tx.run(tenantId, async () => {
      const row = await this.deliveries.lockForReplay(tenantId, deliveryId);
      if (!row) throw new NotFoundError('delivery');
      if (row.webhook_status === 'revoked') throw new WebhookRevokedError();
      if (row.status !== 'failed' && row.status !== 'retry') {
        throw new DeliveryNotReplayableError(row.status);
      }
      await this.deliveries.requeue(tenantId, deliveryId);
      return { deliveryId, status: 'queued' as const };
    });
  }
}
