import type {
  CatalogEventType,
  EventData as CatalogEventData,
  EventPayload as CatalogEventPayload,
} from '../modules/events/event-catalog.js' with { 'resolution-mode': 'import' };
import type { EventType as SubscribableType } from '../modules/events/event-types.js' with {
  'resolution-mode': 'import',
};

/** Every type a webhook may receive: the subscribable ones and `webhook.test`. */
export type EventType = CatalogEventType;

/** The types a webhook subscribes to, and `emit` publishes. */
export type SubscribableEventType = SubscribableType;

/** The body of a delivery of type `T`: `{ id, type, timestamp, tenant_id, data }`. */
export type EventPayload<T extends EventType = EventType> = CatalogEventPayload<T>;

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType = EventType> = CatalogEventData<T>;
