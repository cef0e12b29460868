import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, TenantIdColumn } from '../../../common/database/entity-columns.js';

/** The first response to a write sent with an `Idempotency-Key`, replayed verbatim on a retry. */
@Entity('idempotency_keys')
@Index('idempotency_keys_created', ['createdAt'])
@Check('idempotency_keys_key_check', 'length(key) BETWEEN 1 AND 255')
export class IdempotencyKey {
  @TenantIdColumn('idempotency_keys', { primary: true })
  tenantId!: number;

  /** Which credential sent it (`client:3`, `pat:7`); never a secret. */
  @PrimaryColumn({ name: 'credential_ref', type: 'text' })
  credentialRef!: string;

  @PrimaryColumn('text')
  route!: string;

  @PrimaryColumn('text')
  key!: string;

  @Column({ name: 'request_hash', type: 'text' })
  requestHash!: string;

  @Column({ name: 'response_status', type: 'int' })
  responseStatus!: number;

  /** `json`, not `jsonb`: the replay returns the body as first written (key order kept). */
  @Column({ name: 'response_body', type: 'json' })
  responseBody!: unknown;

  @CreatedAtColumn()
  createdAt!: Date;
}
