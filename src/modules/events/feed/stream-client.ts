import type { ServerResponse } from 'node:http';
import type { FeedFilter, FeedPosition } from './event-feed.service.js';

// A client of the platform API's event stream (EventStreamHub) and the frames it is written.

/** One connected client of the stream. */
export interface StreamClient {
  res: ServerResponse;
  filter: FeedFilter;
  /** Clients with the same key at the same position share one read. */
  filterKey: string;
  position: FeedPosition;
  /** reading: a read or its write is under way; blocked: the socket buffer is full. */
  state: 'idle' | 'reading' | 'blocked' | 'closed';
  /** A wake-up came while it was reading or blocked: read again when it is done. */
  again: boolean;
}

/** The SSE frame of one event: `id` (its cursor), `event` (its type), `data` (its envelope). */
export const eventFrame = (cursor: string, type: string, envelope: string): string =>
  // the envelope is jsonb's text output: a newline in a value is escaped, never raw
  `id: ${cursor}\nevent: ${type}\ndata: ${envelope}\n\n`;
