import { Injectable } from '@nestjs/common';
import type { Statement } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import { currentTraceparent } from '../../../common/tracing/trace-hooks.js';
import type { EventData, WEBHOOK_TEST_EVENT } from '../../events/event-catalog.js';
import type { EventType } from '../../events/event-types.js';
import { eventEnvelope } from './event-envelope.js';
import {
  type AlongCtes,
  appendEvent,
  appendEvents,
  appendToWebhook,
  type Queued,
} from './outbox.repository.js';

export type { AlongCtes };

/** One event of any subscribable type, with exactly its catalog `data`. */
export type OutboxEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/**
 * The transactional outbox, owned by the webhooks context (its only reader). An event and its
 * deliveries commit or roll back with the state change that caused them, so a webhook never hears
 * of a change that did not happen, nor misses one that did; the workers and the event feed are
 * woken once it has committed (CommitAnnouncer). Each
 * event keeps the trace context it was published in (tracing on), which its deliveries continue.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * The statement that appends an event of `type` (with `along`, the change that caused it, in
   * the same statement), for the caller to run in its transaction: with `TenantTransactions.query`,
   * or `queryAndCommit` when it is the transaction's last statement.
   */
  append<T extends EventType, A = never>(
    tenantId: number,
    type: T,
    /** Exactly the catalog's `data` of `type` (event-catalog.ts), which the OpenAPI document describes. */
    data: EventData<T>,
    along?: Statement<A>,
  ): { eventId: string; statement: Statement<{ along: A[] | null }> } {
    const envelope = eventEnvelope(tenantId, type, data);
    return { eventId: envelope.id, statement: appendEvent(envelope, currentTraceparent(), along) };
  }

  /**
   * The statement that appends `events` of one tenant, in the order given, with `along` (the
   * change that caused them, as CTEs) in the same statement, for the caller to run in its
   * transaction (`TenantTransactions.queryAndCommit` when it is the last statement).
   */
  appendAll<R>(
    tenantId: number,
    events: readonly OutboxEvent[],
    along: AlongCtes<R>,
  ): Statement<R & Queued> {
    const envelopes = events.map((e) => eventEnvelope(tenantId, e.type, e.data));
    return appendEvents(tenantId, envelopes, currentTraceparent(), along);
  }

  /** `append` run now; must be inside `TenantTransactions.run(tenantId, …)`, whose transaction it joins. */
  async publish<T extends EventType>(
    tenantId: number,
    type: T,
    data: EventData<T>,
  ): Promise<string> {
    const { eventId, statement } = this.append(tenantId, type, data);
    await this.tx.query(statement);
    return eventId;
  }

  /**
   * Many events of one type at once (a bulk write's), in the order given, in one statement;
   * must be inside `TenantTransactions.run(tenantId, …)`, whose transaction it joins.
   */
  async publishMany<T extends EventType>(
    tenantId: number,
    type: T,
    data: readonly EventData<T>[],
  ): Promise<void> {
    if (data.length === 0) return;
    const envelopes = data.map((d) => eventEnvelope(tenantId, type, d));
    await this.tx.query(appendEvents(tenantId, envelopes, currentTraceparent()));
  }

  /**
   * An event for one webhook only (a `webhook.test`), joining the caller's transaction. Null when
   * the webhook is not active or paused, and then nothing is written. The caller holds a lock on
   * the webhook row, so a revocation cannot slip in between.
   */
  async publishToWebhook(
    tenantId: number,
    webhookId: number,
    type: typeof WEBHOOK_TEST_EVENT,
    data: EventData<typeof WEBHOOK_TEST_EVENT>,
  ): Promise<{ eventId: string; deliveryId: number } | null> {
    const envelope = eventEnvelope(tenantId, type, data);
    const [row] = await this.tx.query(appendToWebhook(envelope, webhookId, currentTraceparent()));
    const deliveryId = row?.delivery_id;
    return deliveryId == null ? null : { eventId: envelope.id, deliveryId: Number(deliveryId) };
  }
}
