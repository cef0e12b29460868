import { EVENTS_APPENDED_CHANNEL } from '../../../common/database/schema-constants.js';
import { announcing, type Sql, sql, type Statement } from '../../../common/database/statement.js';
import type { EventEnvelope } from './event-envelope.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from './outbox-channel.js';

/** Whether the statement queued deliveries (then the delivery workers are woken too). */
export interface Queued {
  queued: boolean;
}

/** What an events statement announces once committed: the feed, and the workers if it queued. */
function wakeUps<R extends Queued>(statement: Statement<R>): Statement<R> {
  return announcing(statement, ([row]) =>
    row?.queued ? [EVENTS_APPENDED_CHANNEL, WEBHOOK_DELIVERIES_CHANNEL] : [EVENTS_APPENDED_CHANNEL],
  );
}

/**
 * The event and one delivery per subscribed webhook as ONE statement (its wake-ups once committed);
 * `along` (the change that caused the event: one data-modifying statement, `RETURNING` what its
 * caller needs, timestamps formatted in SQL) runs in it as a CTE, so both cost one round trip.
 * `traceParent` is the publishing span's context (null without tracing), for the deliveries' spans.
 * Paused webhooks get a (held) delivery too: the worker only claims deliveries of active
 * webhooks, and re-activation releases them. Revoked webhooks get nothing.
 */
export function appendEvent<A>(
  envelope: EventEnvelope,
  traceParent: string | null,
  along?: Statement<A>,
): Statement<{ along: A[] | null } & Queued> {
  const { id, tenant_id: tenantId, type } = envelope;
  const alongCte: Sql = along ? sql`along AS (${along}), ` : sql``;
  const alongRows: Sql = along ? sql`(SELECT json_agg(along) FROM along)` : sql`NULL::json`;
  return wakeUps(sql`WITH ${alongCte}ev AS (
       INSERT INTO events (event_id, tenant_id, type, payload, trace_parent)
       VALUES (${id}, ${tenantId}, ${type}, ${JSON.stringify(envelope)}::jsonb, ${traceParent})
       RETURNING id
     ), d AS (
       INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
       SELECT ${tenantId}, w.id, ev.id
         FROM webhooks w CROSS JOIN ev
        WHERE w.tenant_id = ${tenantId}
          AND w.status IN ('active', 'paused')
          AND (w.events @> ARRAY[${type}::text] OR w.events @> ARRAY['*'])
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM d) AS queued, ${alongRows} AS along`);
}

/**
 * Data-modifying CTEs (`name AS (…), …`, the change that caused the events) to run in the events'
 * statement, and the select-list items (`<expression> AS <name>`) it answers from them.
 */
export interface AlongCtes<R> {
  ctes: Sql;
  columns: Sql;
  readonly __row?: R;
}

/**
 * Many events of one tenant as ONE statement (a bulk write's, or a decision's with `along`, the
 * change that caused them): each with its deliveries, and one set of wake-ups for all. The
 * events are numbered in the order given.
 */
export function appendEvents<R = Record<string, never>>(
  tenantId: number,
  envelopes: readonly EventEnvelope[],
  traceParent: string | null,
  along?: AlongCtes<R>,
): Statement<R & Queued> {
  const ids = envelopes.map((e) => e.id);
  const types = envelopes.map((e) => e.type);
  const payloads = envelopes.map((e) => JSON.stringify(e));
  const alongCtes: Sql = along ? sql`${along.ctes}, ` : sql``;
  const alongColumns: Sql = along ? sql`, ${along.columns}` : sql``;
  return wakeUps(sql`WITH ${alongCtes}ev AS (
       INSERT INTO events (event_id, tenant_id, type, payload, trace_parent)
       SELECT e.event_id, ${tenantId}, e.type, e.payload::jsonb, ${traceParent}::text
         FROM unnest(${ids}::text[], ${types}::text[], ${payloads}::text[])
              WITH ORDINALITY AS e(event_id, type, payload, n)
        ORDER BY e.n
       RETURNING id, type
     ), d AS (
       INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
       SELECT ${tenantId}, w.id, ev.id
         FROM webhooks w JOIN ev ON w.events @> ARRAY[ev.type] OR w.events @> ARRAY['*']
        WHERE w.tenant_id = ${tenantId} AND w.status IN ('active', 'paused')
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM d) AS queued${alongColumns}`);
}

/**
 * An event for one webhook only, whatever its `events` (a `webhook.test`): the event and its
 * single delivery, one statement. Nothing is written unless the webhook is active or paused.
 */
export function appendToWebhook(
  envelope: EventEnvelope,
  webhookId: number,
  traceParent: string | null,
): Statement<{ delivery_id: string | null } & Queued> {
  const { id, tenant_id: tenantId, type } = envelope;
  return wakeUps(sql`WITH w AS (
       SELECT id FROM webhooks
        WHERE id = ${webhookId} AND tenant_id = ${tenantId} AND status IN ('active', 'paused')
     ), ev AS (
       INSERT INTO events (event_id, tenant_id, type, payload, trace_parent)
       SELECT ${id}, ${tenantId}, ${type}, ${JSON.stringify(envelope)}::jsonb, ${traceParent}::text
        WHERE EXISTS (SELECT 1 FROM w)
       RETURNING id
     ), d AS (
       INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id)
       SELECT ${tenantId}, w.id, ev.id FROM w CROSS JOIN ev
       RETURNING id
     )
     SELECT (SELECT id FROM d) AS delivery_id, EXISTS (SELECT 1 FROM d) AS queued`);
}
