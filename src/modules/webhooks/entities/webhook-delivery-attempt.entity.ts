import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { BigIdColumn, TenantIdColumn } from '../../../common/database/entity-columns.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';

@Entity('webhook_delivery_attempts')
@Index('webhook_delivery_attempts_delivery', ['deliveryId'])
export class WebhookDeliveryAttemptEntity {
  @BigIdColumn()
  id!: string;

  @TenantIdColumn('webhook_delivery_attempts')
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
