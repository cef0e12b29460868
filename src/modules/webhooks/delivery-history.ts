import { isoTimestamp, jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import type { ListIdentity } from '../../common/pagination/cursor.js';
import { keysetAfter, keysetPageSql } from '../../common/pagination/keyset-page.js';
import { CATALOG_EVENT_TYPES, type CatalogEventType } from '../events/event-catalog.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from './entities/webhook-delivery.entity.js';

/**
 * The statements of the delivery history (`GET /webhook-deliveries`, `…/{deliveryId}` and
 * `…/{deliveryId}/attempts`). Each is one read-only statement for `TenantTransactions.readOnce`,
 * whose placeholders may only be integers: a status filter travels as a bit mask over
 * `DELIVERY_STATUSES` and an event type as its 1-based position in `CATALOG_EVENT_TYPES`.
 */

const textArray = (values: readonly string[]): string =>
  `ARRAY[${values.map((v) => `'${v}'`).join(', ')}]::text[]`;

/**
 * The status a delivery is listed with: a `sending` row whose lease lapsed while its webhook is
 * paused or revoked is shown as what it will be. The status filter matches this, not the column.
 */
const LISTED_STATUS = `CASE WHEN d.status = 'sending' AND w.status <> 'active'
                            AND d.lease_expires_at < now()
                       THEN CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END
                       ELSE d.status END`;

const DELIVERY_COLUMNS = `d.id, d.webhook_id, e.event_id, e.type AS event_type,
                ${LISTED_STATUS} AS status,
                d.attempts, d.last_attempt_at,
                CASE WHEN d.status IN ('queued', 'retry', 'sending') THEN d.next_attempt_at END
                  AS next_attempt_at,
                d.last_response_status, d.last_error, d.created_at`;

const DELIVERY_FROM = `webhook_deliveries d
           JOIN events e ON e.id = d.event_id
           JOIN webhooks w ON w.id = d.webhook_id`;

/** One delivery as listed, as the JSON text of its view (fields in the view's order). */
const DELIVERY_ITEM = jsonObjectText({
  deliveryId: v.integer('r.id'),
  webhookId: v.integer('r.webhook_id'),
  event_id: v.text('r.event_id'),
  event_type: v.text('r.event_type'),
  status: v.text('r.status'),
  attempts: v.integer('r.attempts'),
  last_attempt_at: v.timestamp('r.last_attempt_at'),
  next_attempt_at: v.timestamp('r.next_attempt_at'),
  last_response_status: v.integer('r.last_response_status'),
  last_error: v.text('r.last_error'),
  created_at: v.timestamp('r.created_at'),
});

/** The filters of `GET /webhook-deliveries`, validated (ListDeliveriesQuery). */
export interface DeliveryFilter {
  webhookId?: number;
  status?: readonly DeliveryStatus[];
  event_type?: CatalogEventType;
}

/** A filter as the integers the statement takes; absent filters are absent. */
interface EncodedFilter {
  webhookId?: number;
  statusMask?: number;
  eventType?: number;
}

function encode(filter: DeliveryFilter): EncodedFilter {
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
  const f = encode(filter);
  const filtered =
    f.webhookId !== undefined || f.statusMask !== undefined || f.eventType !== undefined;
  return {
    tenantId,
    list: 'webhook_deliveries',
    ...(filtered ? { scope: [f.webhookId ?? 0, f.statusMask ?? 0, f.eventType ?? 0] } : {}),
  };
}

const pageStatements = new Map<string, string>();

/** The most deliveries one page filtered by status or event type reads. */
export const FILTER_SCAN_ROWS = 10_000;

/**
 * One page of the tenant's deliveries, newest first (descending deliveryId), with `filter`:
 * the statement and its integers ($1 tenant, $2 the deliveryId before which the page starts,
 * $3 limit, then one per filter given). One statement text per combination of filters given
 * (at most 8), so each is prepared once per connection and planned for its own filters: with
 * `webhookId`, the walk follows that webhook's index instead of the tenant's.
 */
export function deliveryPage(
  tenantId: number,
  after: number,
  limit: number,
  filter: DeliveryFilter,
): { sql: string; integers: number[] } {
  const f = encode(filter);
  const integers = [tenantId, after, limit];
  const param = (value: number): string => {
    integers.push(value);
    return `$${integers.length}::int`;
  };
  // the webhook filter narrows the walk itself (its own index); the others are tested per row
  const walk: string[] = [];
  if (f.webhookId !== undefined) walk.push(`d.webhook_id = ${param(f.webhookId)}`);
  const where: string[] = [];
  if (f.statusMask !== undefined) {
    where.push(
      `((${param(f.statusMask)} >> (array_position(${textArray(DELIVERY_STATUSES)}, ${LISTED_STATUS}) - 1)) & 1) = 1`,
    );
  }
  if (f.eventType !== undefined) {
    where.push(`e.type = (${textArray(CATALOG_EVENT_TYPES)})[${param(f.eventType)}]`);
  }
  const key = `${f.webhookId !== undefined}/${f.statusMask !== undefined}/${f.eventType !== undefined}`;
  let sql = pageStatements.get(key);
  if (sql === undefined) {
    const and = (conditions: string[]) => conditions.map((c) => `AND ${c}`).join(' ');
    const after = keysetAfter('d.id', 'DESC', '$2::bigint');
    if (where.length === 0) {
      sql = keysetPageSql({
        rows: `SELECT d.id AS k, ${DELIVERY_COLUMNS}
             FROM ${DELIVERY_FROM}
            WHERE d.tenant_id = $1 AND ${after} ${and(walk)}
            ORDER BY d.id DESC LIMIT $3::int + 1`,
        item: DELIVERY_ITEM,
        order: 'DESC',
        limit: '$3::int',
      });
    } else {
      // A filter that few rows match would walk the tenant's whole history for one page: a page
      // reads at most FILTER_SCAN_ROWS deliveries, and when it stops there with room left, its
      // cursor points past what it read (the page may be short, even empty, and not the last).
      sql = `
        WITH scan AS (
          SELECT d.id FROM webhook_deliveries d
           WHERE d.tenant_id = $1 AND ${after} ${and(walk)}
           ORDER BY d.id DESC LIMIT ${FILTER_SCAN_ROWS}
        )
        SELECT p.data,
               CASE WHEN p.more THEN p.last_key ELSE (SELECT min(id) FROM scan) END AS last_key,
               p.more OR (SELECT count(*) FROM scan) = ${FILTER_SCAN_ROWS} AS more
          FROM (${keysetPageSql({
            rows: `SELECT d.id AS k, ${DELIVERY_COLUMNS}
                 FROM scan s
                 JOIN webhook_deliveries d ON d.id = s.id
                 JOIN events e ON e.id = d.event_id
                 JOIN webhooks w ON w.id = d.webhook_id
                WHERE true ${and(where)}
                ORDER BY d.id DESC LIMIT $3::int + 1`,
            item: DELIVERY_ITEM,
            order: 'DESC',
            limit: '$3::int',
          })}) p`;
    }
    pageStatements.set(key, sql);
  }
  return { sql, integers };
}

/** One delivery as listed, or no row. $1 tenant, $2 deliveryId. */
export const DELIVERY_SQL = `
  SELECT (${DELIVERY_ITEM})::json AS delivery
    FROM (SELECT ${DELIVERY_COLUMNS}
            FROM ${DELIVERY_FROM}
           WHERE d.tenant_id = $1 AND d.id = $2::bigint) r`;

/** Replays add attempts without end: the list keeps the newest this many (numbered as ever). */
export const MAX_ATTEMPTS_LISTED = 1000;

/**
 * A delivery's attempts (the newest `MAX_ATTEMPTS_LISTED`), in the order they started, numbered
 * from 1, and whether the delivery is
 * the tenant's (`found`). $1 tenant, $2 deliveryId. Only what the receiver answered is kept,
 * never what was sent.
 */
export const ATTEMPTS_SQL = `
  SELECT EXISTS (SELECT 1 FROM webhook_deliveries
                  WHERE tenant_id = $1 AND id = $2::bigint) AS found,
         COALESCE((SELECT json_agg(json_build_object(
                            'attempt', a.n,
                            'started_at', ${isoTimestamp('a.attempted_at')},
                            'duration_ms', a.duration_ms,
                            'response_status', a.response_status,
                            'error', a.error,
                            'response_body_excerpt', a.response_body_excerpt) ORDER BY a.n)
                     FROM (SELECT a.*, row_number() OVER (ORDER BY a.attempted_at, a.id) AS n
                             FROM webhook_delivery_attempts a
                            WHERE a.tenant_id = $1 AND a.delivery_id = $2::bigint
                            ORDER BY n DESC LIMIT ${MAX_ATTEMPTS_LISTED}) a),
                  '[]'::json) AS data`;
