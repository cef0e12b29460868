import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  CreatedAtColumn,
  ExternalIdColumn,
  ExternalIdConstraints,
  IdColumn,
  TenantIdColumn,
  TriggerJsonColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';
import { DocumentVersion } from './document-version.entity.js';

export type DocumentStatus = 'active' | 'archived';

@Entity('documents')
@Index('documents_project', ['projectId', 'id'])
@Check('documents_status_check', "status IN ('active', 'archived')")
@ExternalIdConstraints('documents')
export class DocumentEntity {
  @IdColumn()
  id!: number;

  @TenantIdColumn('documents')
  tenantId!: number;

  @ExternalIdColumn()
  externalId!: string | null;

  @Column({ name: 'project_id', type: 'int' })
  @ForeignKey('projects', { name: 'documents_project_id_fkey' })
  projectId!: number;

  @Column('text')
  title!: string;

  @Column({ type: 'text', default: 'active' })
  status!: DocumentStatus;

  /** Deferred: a document and its first version are inserted in one transaction. */
  @Column({ name: 'current_version_id', type: 'int', nullable: true })
  @ForeignKey(() => DocumentVersion, {
    name: 'documents_current_version',
    deferrable: 'INITIALLY DEFERRED',
  })
  currentVersionId!: number | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;

  /**
   * The row's `GET /projects/{id}/documents` item as JSON text, written only by the trigger of
   * migration 1764002900000 (never by TypeORM) and read only by the page's SQL.
   */
  @TriggerJsonColumn('summary_json')
  summaryJson!: string;
}
