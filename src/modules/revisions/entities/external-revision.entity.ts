import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const REVISION_STATUSES = ['staged', 'accepted', 'rejected', 'superseded'] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

@Entity('external_revisions')
export class ExternalRevision {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'document_id', type: 'int' })
  documentId!: number;

  @Column({ name: 'base_version_id', type: 'int' })
  baseVersionId!: number;

  @Column('text')
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
  resultingVersionId!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
