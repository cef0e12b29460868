import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
} from 'typeorm';

/** A domain event as published to webhooks (`evt_…`), one row per event. */
@Entity('events')
@Index('events_tenant', ['tenantId', 'id'])
@Index('events_created', ['createdAt'])
export class EventEntity {
  /** `bigint` arrives from pg as a string. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  /** The public id (`evt_…`). */
  @Column({ name: 'event_id', type: 'text', unique: true })
  eventId!: string;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'events_tenant_id_fkey' })
  tenantId!: number;

  @Column('text')
  type!: string;

  @Column('jsonb')
  payload!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
