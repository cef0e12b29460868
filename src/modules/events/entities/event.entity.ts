import { Column, Entity, Index } from 'typeorm';
import {
  BigIdColumn,
  CreatedAtColumn,
  TenantIdColumn,
} from '../../../common/database/entity-columns.js';

/** A domain event as published to webhooks (`evt_…`), one row per event. */
@Entity('events')
@Index('events_tenant', ['tenantId', 'id'])
@Index('events_created', ['createdAt'])
@Index('events_feed', ['xid', 'id'])
@Index('events_tenant_feed', ['tenantId', 'xid', 'id'])
export class EventEntity {
  /** `bigint` arrives from pg as a string. */
  @BigIdColumn()
  id!: string;

  /** The public id (`evt_…`). */
  @Column({ name: 'event_id', type: 'text', unique: true })
  eventId!: string;

  @TenantIdColumn('events')
  tenantId!: number;

  @Column('text')
  type!: string;

  @Column('jsonb')
  payload!: Record<string, unknown>;

  /**
   * The writing transaction's id (`txid_current()`, 64-bit with its epoch): with `id`, the order of the event feed,
   * which only ever returns events of transactions that have ended (migration 1764003500000).
   */
  @Column({ type: 'bigint', default: () => 'txid_current()' })
  xid!: string;

  /**
   * The publishing transaction's trace context (W3C `traceparent`), null without tracing
   * (migration 1764004030000); a delivery attempt's span joins that trace.
   */
  @Column({ name: 'trace_parent', type: 'text', nullable: true })
  traceParent!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
