import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  BigIdColumn,
  CreatedAtColumn,
  TenantIdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';
import { WebhookEntity } from './webhook.entity.js';

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
// Only `pending` and `next_attempt_at` of the columns an update changes are indexed (and only
// here): a claim changes neither, so it is a HOT update (migration 1764005030000-delivery-churn)
@Index('webhook_deliveries_pending', ['webhookId', 'nextAttemptAt'], { where: 'pending' })
@Index('webhook_deliveries_event', ['eventRowId'])
// (tenant_id, id DESC), (webhook_id, id DESC): TypeORM cannot state a column's order, so the
// generator leaves these two alone
@Index('webhook_deliveries_tenant', { synchronize: false })
@Index('webhook_deliveries_by_webhook', { synchronize: false })
@Check(
  'webhook_deliveries_status_check',
  "status IN ('queued', 'sending', 'succeeded', 'retry', 'failed', 'cancelled')",
)
@Check('webhook_deliveries_pending_check', "pending = (status IN ('queued', 'retry', 'sending'))")
export class WebhookDeliveryEntity {
  @BigIdColumn()
  id!: string;

  @TenantIdColumn('webhook_deliveries')
  tenantId!: number;

  @Column({ name: 'webhook_id', type: 'int' })
  @ForeignKey(() => WebhookEntity, { name: 'webhook_deliveries_webhook_id_fkey' })
  webhookId!: number;

  /** The `events.id` row (not the public `evt_…` id). */
  @Column({ name: 'event_id', type: 'bigint' })
  @ForeignKey('events', { name: 'webhook_deliveries_event_id_fkey' })
  eventRowId!: string;

  @Column({ type: 'text', default: 'queued' })
  status!: DeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
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

  /** `status` is queued, retry or sending; kept by a trigger (the worker's index names it). */
  @Column({ type: 'boolean', default: true })
  pending!: boolean;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
