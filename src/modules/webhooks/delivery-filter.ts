import type { ListIdentity } from '../../common/pagination/cursor.js';
import { CATALOG_EVENT_TYPES, type CatalogEventType } from '../events/event-catalog.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from './entities/webhook-delivery.entity.js';

/** The filters of `GET /webhook-deliveries`, validated (ListDeliveriesQuery). */
export interface DeliveryFilter {
  webhookId?: number;
  status?: readonly DeliveryStatus[];
  event_type?: CatalogEventType;
}

/**
 * A filter as integers, as the history's read-only statements take them (their parameters may
 * only be integers): a status filter as a bit mask over `DELIVERY_STATUSES`, an event type as its
 * 1-based position in `CATALOG_EVENT_TYPES`. Absent filters are absent.
 */
export interface EncodedFilter {
  webhookId?: number;
  statusMask?: number;
  eventType?: number;
}

export function encodeDeliveryFilter(filter: DeliveryFilter): EncodedFilter {
  const out: EncodedFilter = {};
  if (filter.webhookId !== undefined) out.webhookId = filter.webhookId;
  if (filter.status !== undefined) {
    out.statusMask = filter.status.reduce((m, s) => m | (1 << DELIVERY_STATUSES.indexOf(s)), 0);
  }
  if (filter.event_type !== undefined) {
    out.eventType = CATALOG_EVENT_TYPES.indexOf(filter.event_type) + 1;
  }
  return out;
}

/**
 * The cursor's list: a cursor walks one filter set only. Without filters the scope is empty, as
 * before filters existed, so cursors already handed out stay valid.
 */
export function deliveryListIdentity(tenantId: number, filter: DeliveryFilter): ListIdentity {
  const f = encodeDeliveryFilter(filter);
  const filtered =
    f.webhookId !== undefined || f.statusMask !== undefined || f.eventType !== undefined;
  return {
    tenantId,
    list: 'webhook_deliveries',
    ...(filtered ? { scope: [f.webhookId ?? 0, f.statusMask ?? 0, f.eventType ?? 0] } : {}),
  };
}
