import { Injectable } from '@nestjs/common';
import { empty, fragment, sql, type Statement } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';

/** A place in the feed: the writing transaction's id, then the event's id (both bigint). */
export interface FeedPosition {
  xid: number;
  id: number;
}

export interface FeedFilter {
  /** One tenant's events only; every tenant's when absent. */
  tenantId?: number;
  /** These types only; every type when absent. */
  types?: readonly string[];
}

export interface FeedRow {
  xid: string;
  id: string;
  type: string;
  /** The stored webhook envelope with `tenantId` added, as JSON text. */
  envelope: string;
}

/** One row per event of the page (or one row of nulls for an empty page), each with the rest. */
interface PageRow {
  xid: string | null;
  id: string | null;
  type: string | null;
  envelope: string | null;
  /** The newest position below the horizon (whatever the filter), null when there is none. */
  last_xid: string | null;
  last_id: string | null;
  /** Whether committed events wait above the horizon (a transaction older than them still runs). */
  pending: boolean;
}

export interface FeedRead {
  rows: FeedRow[];
  last: FeedPosition | null;
  pending: boolean;
}

/**
 * The event feed's one statement, run in a cross-tenant read-only transaction. See
 * `EventFeedService` for why the horizon makes the order safe to resume from. One statement, so
 * the page, the newest position and `pending` are all read against the same snapshot and horizon.
 */
@Injectable()
export class EventFeedRepository {
  constructor(private readonly tx: TenantTransactions) {}

  async read(after: FeedPosition | null, filter: FeedFilter, limit: number): Promise<FeedRead> {
    const page = await this.tx.query(feedPage(after, filter, limit));
    const first = page[0];
    const last =
      first?.last_xid == null || first.last_id == null
        ? null
        : { xid: Number(first.last_xid), id: Number(first.last_id) };
    const rows: FeedRow[] = [];
    for (const r of page) {
      if (r.xid !== null && r.id !== null && r.type !== null && r.envelope !== null) {
        rows.push({ xid: r.xid, id: r.id, type: r.type, envelope: r.envelope });
      }
    }
    return { rows, last, pending: first?.pending ?? false };
  }
}

/**
 * The feed's horizon (`xmin`): every transaction below it that could have written an event has
 * ended. The snapshot's own xmin is that bound, but it is the oldest running transaction of the
 * whole server, any database's: on a server shared with other databases, their transactions
 * would hold the feed back too. So when the snapshot's xmin does hold an event back, the running
 * transactions of the snapshot (`xip`) are looked at one by one, and those held by a backend of
 * another database (its own transaction-id lock, in `pg_locks`, held by a session of another
 * database in `pg_stat_activity`: a session never changes database) are left out; the horizon is
 * the oldest of the rest, or the snapshot's xmax when none is left. A transaction that ended
 * since the snapshot is no longer in `pg_locks` and stays counted: the bound is only ever lower
 * than it could be, never higher. `pg_locks` takes the lock manager's locks briefly, so it is
 * read only when an event is actually held back.
 */
const HORIZON = fragment(`
       SELECT CASE
         WHEN NOT EXISTS (
           SELECT 1 FROM events WHERE xid >= txid_snapshot_xmin(txid_current_snapshot())
         ) THEN txid_snapshot_xmin(txid_current_snapshot())
         ELSE (
           SELECT COALESCE(min(r.x), txid_snapshot_xmax(txid_current_snapshot()))
             FROM txid_snapshot_xip(txid_current_snapshot()) AS r (x)
            WHERE NOT EXISTS (
              SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
               WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
                 AND l.transactionid::text = (r.x % 4294967296)::text
                 AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database()))
         )
       END AS xmin`);

/**
 * Filters are spliced in only when present, so each combination is its own prepared statement with
 * a plan for it (an `$n IS NULL OR …` form would share one generic plan among them all).
 */
function feedPage(
  after: FeedPosition | null,
  filter: FeedFilter,
  limit: number,
): Statement<PageRow> {
  const from = after ?? { xid: -1, id: -1 };
  const tenant =
    filter.tenantId === undefined ? empty : sql`AND e.tenant_id = ${filter.tenantId}::int`;
  const types =
    filter.types === undefined ? empty : sql`AND e.type = ANY (${filter.types}::text[])`;
  return sql<PageRow>`WITH horizon AS (${HORIZON}), page AS (
       SELECT e.xid::text AS xid, e.id::text AS id, e.type,
              (e.payload || jsonb_build_object('tenantId', e.tenant_id))::text AS envelope
         FROM events e
        WHERE (e.xid, e.id) > (${from.xid}::bigint, ${from.id}::bigint)
          AND e.xid < (SELECT xmin FROM horizon)
          ${tenant} ${types}
        ORDER BY e.xid, e.id
        LIMIT ${limit}::int
     ), newest AS (
       SELECT e.xid, e.id FROM events e
        WHERE e.xid < (SELECT xmin FROM horizon)
        ORDER BY e.xid DESC, e.id DESC
        LIMIT 1
     )
     SELECT page.xid, page.id, page.type, page.envelope,
            (SELECT xid::text FROM newest) AS last_xid,
            (SELECT id::text FROM newest) AS last_id,
            EXISTS (SELECT 1 FROM events e WHERE e.xid >= (SELECT xmin FROM horizon)) AS pending
       FROM (SELECT 1) AS one LEFT JOIN page ON true
      ORDER BY page.xid::bigint, page.id::bigint`;
}
