import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
} from '../../../common/database/entity-columns.js';
import type { RevisionStatus } from '../revision-status.js';

@Entity('external_revisions')
@Index('external_revisions_document', ['documentId', 'id'])
@Index('external_revisions_staged', ['documentId'], { where: "status = 'staged'" })
// a decision's other staged candidates of one document, in id order
@Index('external_revisions_staged_by_document', ['tenantId', 'documentId', 'id'], {
  where: "status = 'staged'",
})
// the platform's review queue: oldest first by status, across tenants or for one
@Index('external_revisions_queue', ['status', 'id'])
@Index('external_revisions_tenant_queue', ['tenantId', 'status', 'id'])
@Check(
  'external_revisions_status_check',
  "status IN ('staged', 'accepted', 'rejected', 'superseded')",
)
@Check('external_revisions_source_reference_check', 'length(source_reference) <= 500')
export class ExternalRevision {
  @IdColumn()
  id!: number;

  @TenantIdColumn('external_revisions')
  tenantId!: number;

  @Column({ name: 'document_id', type: 'int' })
  @ForeignKey('documents', { name: 'external_revisions_document_id_fkey' })
  documentId!: number;

  @Column({ name: 'base_version_id', type: 'int' })
  @ForeignKey('document_versions', { name: 'external_revisions_base_version_id_fkey' })
  baseVersionId!: number;

  @Column({ type: 'text', default: 'staged' })
  status!: RevisionStatus;

  @Column('jsonb')
  content!: Record<string, unknown>;

  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;

  @Column({ type: 'text', nullable: true })
  html!: string | null;

  @Column({ name: 'source_reference', type: 'text', nullable: true })
  sourceReference!: string | null;

  /** Which credential staged it (`client:3`, `pat:7`); never a secret. */
  @Column({ name: 'credential_ref', type: 'text' })
  credentialRef!: string;

  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt!: Date | null;

  @Column({ name: 'decided_by', type: 'text', nullable: true })
  decidedBy!: string | null;

  @Column({ name: 'decision_note', type: 'text', nullable: true })
  decisionNote!: string | null;

  @Column({ name: 'resulting_version_id', type: 'int', nullable: true })
  @ForeignKey('document_versions', { name: 'external_revisions_resulting_version_id_fkey' })
  resultingVersionId!: number | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
