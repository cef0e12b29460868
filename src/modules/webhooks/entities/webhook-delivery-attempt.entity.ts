import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';

@Entity('webhook_delivery_attempts')
@Index('webhook_delivery_attempts_delivery', ['deliveryId'])
export class WebhookDeliveryAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'webhook_delivery_attempts_tenant_id_fkey' })
  tenantId!: number;

  @Column({ name: 'delivery_id', type: 'bigint' })
  @ForeignKey(() => WebhookDeliveryEntity, { name: 'webhook_delivery_attempts_delivery_id_fkey' })
  deliveryId!: string;

  @Column({ name: 'attempted_at', type: 'timestamptz', default: () => 'now()' })
  attemptedAt!: Date;

  @Column({ name: 'response_status', type: 'int', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs!: number;

  /** The first 1 KiB of the receiver's response body, as text; null when none arrived. */
  @Column({ name: 'response_body_excerpt', type: 'text', nullable: true })
  responseBodyExcerpt!: string | null;
}
