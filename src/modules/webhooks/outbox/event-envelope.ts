import type { CatalogEventType, EventData } from '../../events/event-catalog.js';
import { newEventId } from '../../events/event-id.js';

/** What is stored in `events.payload` and sent to receivers as the request body. */
export interface EventEnvelope {
  id: string;
  type: CatalogEventType;
  timestamp: string;
  tenant_id: number;
  data: EventData<CatalogEventType>;
}

export function eventEnvelope<T extends CatalogEventType>(
  tenantId: number,
  type: T,
  data: EventData<T>,
): EventEnvelope {
  return { id: newEventId(), type, timestamp: new Date().toISOString(), tenant_id: tenantId, data };
}
