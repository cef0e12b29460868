import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
} from '../../../common/database/entity-columns.js';

export type LockReleaseReason = 'checked_in' | 'expired';

@Entity('document_locks')
// at most one unreleased lock per document: the database picks the winner of concurrent checkouts
@Index('document_locks_one_open', ['documentId'], {
  unique: true,
  where: 'released_at IS NULL',
})
@Index('document_locks_expiry', ['expiresAt'], { where: 'released_at IS NULL' })
@Check('document_locks_release_reason_check', "release_reason IN ('checked_in', 'expired')")
export class DocumentLock {
  @IdColumn()
  id!: number;

  @TenantIdColumn('document_locks')
  tenantId!: number;

  @Column({ name: 'document_id', type: 'int' })
  @ForeignKey('documents', { name: 'document_locks_document_id_fkey' })
  documentId!: number;

  @Column({ name: 'token_digest', type: 'bytea', select: false, unique: true })
  tokenDigest!: Buffer;

  /** Which credential checked it out (`client:3`, `pat:7`); never a secret. */
  @Column({ name: 'credential_ref', type: 'text' })
  credentialRef!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'released_at', type: 'timestamptz', nullable: true })
  releasedAt!: Date | null;

  @Column({ name: 'release_reason', type: 'text', nullable: true })
  releaseReason!: LockReleaseReason | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
