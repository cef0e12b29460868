import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/http/app-error.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../../common/pagination/cursor.js';
import { TenancyService } from '../../tenancy/tenancy.service.js';
import {
  EventFeedRepository,
  type FeedFilter,
  type FeedPosition,
  type FeedRow,
} from './event-feed.repository.js';

export type { FeedFilter, FeedPosition };

/**
 * A feed cursor names a place in every tenant's events, not in one filtered list: one cursor may
 * be used with any `tenantId` and `types` (a poller may widen its filter without starting over).
 */
const FEED: ListIdentity = { tenantId: 0, list: 'platform.events' };

/** One event of the feed: where it is, its type, and its envelope as JSON text. */
export interface FeedEvent {
  cursor: string;
  type: string;
  envelope: string;
}

/** A batch of the feed and where the next one starts. */
export interface FeedBatch {
  events: FeedEvent[];
  /** Where to resume after this batch; null only when nothing has been seen at all. */
  next: FeedPosition | null;
  /** Whether the batch was cut at its limit (more may be readable right away). */
  full: boolean;
  /** Whether committed events wait for an older transaction to end (read again soon). */
  pending: boolean;
}

export const compare = (a: FeedPosition, b: FeedPosition): number =>
  a.xid === b.xid ? a.id - b.id : a.xid - b.xid;

/**
 * Every tenant's events, in an order a reader can resume from (the platform API's `GET /events`
 * and its Server-Sent Events form).
 *
 * Why not `ORDER BY id`: ids come from a sequence when the INSERT runs, but transactions commit in
 * another order. Transaction A takes id 10, B takes id 11 and commits first; a reader sees 11,
 * resumes "after 11", and never sees 10. So each event carries its writer's transaction id (`xid`),
 * and a read returns only events whose transaction is older than the oldest transaction still
 * running (`txid_snapshot_xmin` of the statement's snapshot, the "horizon"). Every transaction
 * below the horizon has ended, committed or not, and every later writer gets an id at or above it:
 * no event can ever appear at a position (`xid`, `id`) at or before one already returned. The
 * price: an event waits while an older transaction (one that has written something) is still
 * running, e.g. a long import delays the feed until it ends; the read says so (`pending`) so the
 * stream looks again soon instead of waiting for the next notification.
 *
 * Cross-tenant: through `readAcrossTenants` (a read-only transaction as the platform role, whose
 * policies let it read every tenant's events); row-level security stays on.
 */
@Injectable()
export class EventFeedService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: EventFeedRepository,
    private readonly tenants: TenancyService,
  ) {}

  /** The position `text` names; throws 400 `validation_failed` on `field` for anything else. */
  decodeCursor(text: string | undefined, field: string): FeedPosition | null {
    if (text === undefined) return null;
    try {
      const key = Cursor.decode(FEED, text, 2);
      return key === null ? null : { xid: key[0]!, id: key[1]! };
    } catch {
      throw new ValidationFailedError([
        { field, message: 'is not a cursor of the event feed (use a cursor it answered)' },
      ]);
    }
  }

  encodeCursor(position: FeedPosition): string {
    return Cursor.encode(FEED, [position.xid, position.id]);
  }

  /** 404 `not_found` unless the tenant exists (a filter naming no tenant is a mistake, not empty). */
  async checkFilter(filter: FeedFilter): Promise<void> {
    if (filter.tenantId !== undefined) await this.tenants.view(filter.tenantId);
  }

  /**
   * A page of `GET /events`: events after `after` in feed order, each the webhook envelope with
   * `tenantId`. `next_cursor` is where to resume: the last event's cursor when the page is full;
   * otherwise the newest position read (the feed is read to its horizon, so events the filters
   * left out are not scanned again), never before `after`. Null only when there is no event at
   * all yet and no `after` was given.
   */
  async page(
    after: string | undefined,
    filter: FeedFilter,
    limit: number,
  ): Promise<CursorPage<Record<string, unknown>>> {
    const from = this.decodeCursor(after, 'after');
    await this.checkFilter(filter);
    const batch = await this.read(from, filter, limit);
    return {
      data: batch.events.map((e) => JSON.parse(e.envelope) as Record<string, unknown>),
      next_cursor: batch.next === null ? null : this.encodeCursor(batch.next),
    };
  }

  /** Events after `after` (from the first when null), at most `limit` (see `page`). */
  async read(after: FeedPosition | null, filter: FeedFilter, limit: number): Promise<FeedBatch> {
    const read = await this.tx.readAcrossTenants(() => this.repository.read(after, filter, limit));
    const events = read.rows.map((row) => this.event(row));
    const full = read.rows.length === limit;
    const lastRow = read.rows.at(-1);
    let next: FeedPosition | null = lastRow
      ? { xid: Number(lastRow.xid), id: Number(lastRow.id) }
      : after;
    // a page cut at its limit resumes after its last event; otherwise everything up to the
    // horizon has been read, so the reader may resume at the newest position below it
    if (!full && read.last && (next === null || compare(read.last, next) > 0)) next = read.last;
    return { events, next, full, pending: read.pending };
  }

  /**
   * Where a reader that wants only what comes next starts: the newest position below the horizon
   * (everything not yet readable lies after it). Null when there is no event at all.
   */
  async head(): Promise<FeedPosition | null> {
    const read = await this.tx.readAcrossTenants(() =>
      this.repository.read(null, { types: [] }, 1),
    );
    return read.last;
  }

  private event(row: FeedRow): FeedEvent {
    return {
      cursor: this.encodeCursor({ xid: Number(row.xid), id: Number(row.id) }),
      type: row.type,
      envelope: row.envelope,
    };
  }
}
