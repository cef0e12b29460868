import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export const DELIVERY_STATUSES = [
  'queued',
  'sending',
  'succeeded',
  'retry',
  'failed',
  'cancelled',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'webhook_id', type: 'int' })
  webhookId!: number;

  /** The `events.id` row (not the public `evt_…` id). */
  @Column({ name: 'event_id', type: 'bigint' })
  eventRowId!: string;

  @Column('text')
  status!: DeliveryStatus;

  @Column('int')
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt!: Date;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;

  @Column({ name: 'last_response_status', type: 'int', nullable: true })
  lastResponseStatus!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /** A `sending` row that holds one of its webhook's in-flight slots (the last row of a chain). */
  @Column({ name: 'holds_slot', type: 'boolean', default: true })
  holdsSlot!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
