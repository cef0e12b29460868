import { Check, Column, Entity, Index } from 'typeorm';
import {
  BigIdColumn,
  CreatedAtColumn,
  TenantIdColumn,
} from '../../../common/database/entity-columns.js';

export type AuditOutcome = 'success' | 'failure';

/** Append-only: triggers refuse UPDATE, DELETE (but `audit prune`'s) and TRUNCATE. */
@Entity('audit_log')
// (tenant_id, id DESC): TypeORM cannot state a column's order, so the generator leaves it alone
@Index('audit_log_tenant', { synchronize: false })
@Index('audit_log_created', ['createdAt'], { type: 'brin' })
@Check('audit_log_outcome_check', "outcome IN ('success', 'failure')")
export class AuditLogEntry {
  /** `bigint` arrives from pg as a string. */
  @BigIdColumn()
  id!: string;

  /** Null for events before a tenant is known (a failed token request). */
  @TenantIdColumn('audit_log', { nullable: true })
  tenantId!: number | null;

  @Column({ name: 'credential_ref', type: 'text', nullable: true })
  credentialRef!: string | null;

  @Column('text')
  action!: string;

  @Column({ type: 'text', nullable: true })
  target!: string | null;

  @Column('text')
  outcome!: AuditOutcome;

  @Column({ type: 'text', nullable: true })
  detail!: string | null;

  @Column({ type: 'text', nullable: true })
  ip!: string | null;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  /** Who, in the platform's UI, a platform key acted for (`X-Acting-User`). */
  @Column({ type: 'text', nullable: true })
  actor!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
