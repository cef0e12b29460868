import { Check, Column, Entity, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';

export const WEBHOOK_STATUSES = ['active', 'paused', 'revoked'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/**
 * Why a webhook is not active: a caller paused or revoked it (`manual`), its receiver answered
 * 410 (`gone`), or its attempts failed without a success for `WEBHOOK_DISABLE_AFTER` (`failing`).
 */
export const WEBHOOK_STATUS_REASONS = ['manual', 'gone', 'failing'] as const;
export type WebhookStatusReason = (typeof WEBHOOK_STATUS_REASONS)[number];

@Entity('webhooks')
@Index('webhooks_tenant', ['tenantId', 'id'])
@Index('webhooks_active', ['id'], { where: "status = 'active'" })
@Check('webhooks_name_check', 'length(name) BETWEEN 1 AND 100')
@Check('webhooks_status_check', "status IN ('active', 'paused', 'revoked')")
@Check('webhooks_status_reason_check', "status_reason IN ('manual', 'gone', 'failing')")
@Check('webhooks_status_reason_when_inactive', "(status = 'active') = (status_reason IS NULL)")
@Check(
  'webhooks_previous_secret_pair',
  '(previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL)',
)
export class WebhookEntity {
  @IdColumn()
  id!: number;

  @TenantIdColumn('webhooks')
  tenantId!: number;

  @Column('text')
  name!: string;

  @Column({ name: 'endpoint_url', type: 'text' })
  endpointUrl!: string;

  @Column('text', { array: true })
  events!: string[];

  @Column({ type: 'text', default: 'active' })
  status!: WebhookStatus;

  /** Null exactly when active (a check constraint). */
  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason!: WebhookStatusReason | null;

  /** First failed attempt since the last success; null while the endpoint is healthy. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  /** Failed attempts since the last success: each halves the endpoint's in-flight slots. */
  @Column({ name: 'consecutive_failures', type: 'int', default: 0 })
  consecutiveFailures!: number;

  /** Its deliveries in `sending`, kept by triggers on `webhook_deliveries` (the claim's limit). */
  @Column({ name: 'in_flight', type: 'int', default: 0 })
  inFlight!: number;

  /** AES-256-GCM sealed signing secret (SecretBox); never leaves the service. */
  @Column({ name: 'secret_sealed', type: 'bytea', select: false })
  secretSealed!: Buffer;

  /** The secret a rotation replaced, sealed; attempts are signed with it too until it expires. */
  @Column({ name: 'previous_secret_sealed', type: 'bytea', nullable: true, select: false })
  previousSecretSealed!: Buffer | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
