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

  @CreatedAtColumn()
  createdAt!: Date;
}
