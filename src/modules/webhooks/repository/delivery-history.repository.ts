import { Injectable } from '@nestjs/common';
import { empty, fragment, join, type Sql, sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import { PageReads } from '../../../common/database/page-reads.js';
import { jsonObjectText, jsonValue as v } from '../../../common/database/sql-json.js';
import {
  afterKey,
  type ChildPageRow,
  type ChildPageText,
  keysetPage,
  type KeysetPageRow,
  type KeysetPageText,
  pageParts,
} from '../../../common/pagination/keyset-page.js';
import { CATALOG_EVENT_TYPES } from '../../events/event-catalog.js';
import type { EncodedFilter } from '../delivery-filter.js';
import type { DeliveryAttemptResponse, DeliveryResponse } from '../dto/delivery.response.js';
import { DELIVERY_STATUSES } from '../entities/webhook-delivery.entity.js';

/**
 * The statements of the delivery history (`GET /webhook-deliveries`, `…/{deliveryId}` and
 * `…/{deliveryId}/attempts`). Each is one read-only statement for `TenantTransactions.readOnce`,
 * whose parameters may only be integers (filters arrive encoded, see `encodeDeliveryFilter`).
 */

const textArray = (values: readonly string[]): Sql =>
  fragment(`ARRAY[${values.map((v) => `'${v}'`).join(', ')}]::text[]`);

/**
 * The status a delivery is listed with: a `sending` row whose lease lapsed while its webhook is
 * paused or revoked is shown as what it will be. The status filter matches this, not the column.
 */
const LISTED_STATUS = fragment(`CASE WHEN d.status = 'sending' AND w.status <> 'active'
                            AND d.lease_expires_at < now()
                       THEN CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END
                       ELSE d.status END`);

const DELIVERY_COLUMNS = sql`d.id, d.webhook_id, e.event_id, e.type AS event_type,
                ${LISTED_STATUS} AS status,
                d.attempts, d.last_attempt_at,
                CASE WHEN d.status IN ('queued', 'retry', 'sending') THEN d.next_attempt_at END
                  AS next_attempt_at,
                d.last_response_status, d.last_error, d.created_at`;

const DELIVERY_FROM = fragment(`webhook_deliveries d
           JOIN events e ON e.id = d.event_id
           JOIN webhooks w ON w.id = d.webhook_id`);

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

/** The most deliveries one page filtered by status or event type reads. */
export const FILTER_SCAN_ROWS = 10_000;

/** Replays add attempts without end: the list keeps the newest this many (numbered as ever). */
export const MAX_ATTEMPTS_LISTED = 1000;

const and = (conditions: Sql[]): Sql =>
  conditions.length === 0
    ? empty
    : join(
        conditions.map((c) => sql`AND ${c}`),
        ' ',
      );

@Injectable()
export class DeliveryHistoryRepository {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly pages: PageReads,
  ) {}

  /**
   * One page of the tenant's deliveries, newest first (descending deliveryId), before the
   * deliveryId `after`, with filter `f`. One statement text per combination of filters given (at
   * most 8), so each is prepared once per connection and planned for its own filters: with
   * `webhookId`, the walk follows that webhook's index instead of the tenant's.
   */
  async page(
    tenantId: number,
    after: number,
    limit: number,
    f: EncodedFilter,
  ): Promise<KeysetPageRow<DeliveryResponse> | undefined> {
    // the webhook filter narrows the walk itself (its own index); the others are tested per row
    const walk: Sql[] = [];
    if (f.webhookId !== undefined) walk.push(sql`d.webhook_id = ${f.webhookId}::int`);
    const where: Sql[] = [];
    if (f.statusMask !== undefined) {
      where.push(
        sql`((${f.statusMask}::int >> (array_position(${textArray(DELIVERY_STATUSES)}, ${LISTED_STATUS}) - 1)) & 1) = 1`,
      );
    }
    if (f.eventType !== undefined) {
      where.push(sql`e.type = (${textArray(CATALOG_EVENT_TYPES)})[${f.eventType}::int]`);
    }
    const past = afterKey('d.id', 'DESC', after);
    const pageOf = (rows: Sql) => keysetPage({ rows, item: DELIVERY_ITEM, order: 'DESC', limit });
    const scanned = sql`SELECT d.id FROM webhook_deliveries d
           WHERE d.tenant_id = ${tenantId} AND ${past} ${and(walk)}
           ORDER BY d.id DESC LIMIT ${fragment(String(FILTER_SCAN_ROWS))}`;
    const statement =
      where.length === 0
        ? pageOf(sql`SELECT d.id AS k, ${DELIVERY_COLUMNS}
             FROM ${DELIVERY_FROM}
            WHERE d.tenant_id = ${tenantId} AND ${past} ${and(walk)}
            ORDER BY d.id DESC LIMIT ${limit}::int + 1`)
        : // A filter that few rows match would walk the tenant's whole history for one page: a
          // page reads at most FILTER_SCAN_ROWS deliveries, and when it stops there with room
          // left, its cursor points past what it read (the page may be short, even empty, and
          // not the last). The page walks the scan in its order, each row looked up by its key
          // and filtered (a lateral subquery, kept whole by OFFSET 0), and stops once it is
          // full; `scan` is read again only for a page that is not. Planned as a join instead,
          // statistics behind a burst of new deliveries made the scan the inner side of a nested
          // loop, rescanned per row (25,000 × 10,000 rows, 32 s).
          sql`
        WITH scan AS (${scanned})
        SELECT ${pageParts('p')},
               CASE WHEN p.more THEN p.last_key ELSE (SELECT min(id) FROM scan) END AS last_key,
               p.more OR (SELECT count(*) FROM scan) = ${fragment(String(FILTER_SCAN_ROWS))} AS more
          FROM (${pageOf(sql`SELECT s.id AS k, x.*
                 FROM (${scanned}) s
                 CROSS JOIN LATERAL (SELECT ${DELIVERY_COLUMNS}
                                       FROM ${DELIVERY_FROM}
                                      WHERE d.id = s.id ${and(where)}
                                     OFFSET 0) x
                ORDER BY s.id DESC LIMIT ${limit}::int + 1`)}) p`;
    const [row] = await this.pages.read(
      tenantId,
      limit,
      sql<KeysetPageText<DeliveryResponse>>`${statement}`,
    );
    return row;
  }

  /** One delivery of the tenant as listed; undefined for an unknown or foreign one. */
  async find(tenantId: number, deliveryId: number): Promise<DeliveryResponse | undefined> {
    const [row] = await this.tx.readOnce(
      tenantId,
      sql<{ delivery: DeliveryResponse }>`
  SELECT (${fragment(DELIVERY_ITEM)})::json AS delivery
    FROM (SELECT ${DELIVERY_COLUMNS}
            FROM ${DELIVERY_FROM}
           WHERE d.tenant_id = ${tenantId} AND d.id = ${deliveryId}::bigint) r`,
    );
    return row?.delivery;
  }

  /**
   * A delivery's attempts (the newest `MAX_ATTEMPTS_LISTED`), in the order they started, numbered
   * from 1, as the parts of their JSON text (`keysetPage`), and whether the delivery is the
   * tenant's. Up to ~1,000 items of 1 KiB excerpts: read as a big page (`PageReads`, the tenants
   * taking turns) and sent as PostgreSQL writes it, never parsed and serialised again in Node.
   * Only what the receiver answered is kept, never what was sent.
   */
  async attempts(
    tenantId: number,
    deliveryId: number,
  ): Promise<ChildPageRow<DeliveryAttemptResponse> | undefined> {
    const [row] = await this.pages.read(
      tenantId,
      MAX_ATTEMPTS_LISTED,
      sql<ChildPageText<DeliveryAttemptResponse>>`
  SELECT EXISTS (SELECT 1 FROM webhook_deliveries
                  WHERE tenant_id = ${tenantId} AND id = ${deliveryId}::bigint) AS found, page.*
    FROM (${keysetPage({
      rows: sql`SELECT a.n AS k, a.*
                  FROM (SELECT a.attempted_at, a.duration_ms, a.response_status, a.error,
                               a.response_body_excerpt,
                               row_number() OVER (ORDER BY a.attempted_at, a.id) AS n
                          FROM webhook_delivery_attempts a
                         WHERE a.tenant_id = ${tenantId} AND a.delivery_id = ${deliveryId}::bigint
                         ORDER BY n DESC LIMIT ${fragment(String(MAX_ATTEMPTS_LISTED))}) a
                 ORDER BY a.n`,
      item: ATTEMPT_ITEM,
      order: 'ASC',
      limit: MAX_ATTEMPTS_LISTED,
    })}) page`,
    );
    return row;
  }
}

/** One attempt as listed, as the JSON text of its view (fields in the view's order). */
const ATTEMPT_ITEM = jsonObjectText({
  attempt: v.integer('r.k'),
  started_at: v.timestamp('r.attempted_at'),
  duration_ms: v.integer('r.duration_ms'),
  response_status: v.integer('r.response_status'),
  error: v.text('r.error'),
  response_body_excerpt: v.text('r.response_body_excerpt'),
});
