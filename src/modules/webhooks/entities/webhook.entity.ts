import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export const WEBHOOK_STATUSES = ['active', 'paused', 'revoked'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

@Entity('webhooks')
export class WebhookEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column('text')
  name!: string;

  @Column({ name: 'endpoint_url', type: 'text' })
  endpointUrl!: string;

  @Column('text', { array: true })
  events!: string[];

  @Column('text')
  status!: WebhookStatus;

  /** AES-256-GCM sealed signing secret (SecretBox); never leaves the service. */
  @Column({ name: 'secret_sealed', type: 'bytea', select: false })
  secretSealed!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
