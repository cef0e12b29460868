import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('webhook_delivery_attempts')
export class WebhookDeliveryAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'delivery_id', type: 'bigint' })
  deliveryId!: string;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
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
