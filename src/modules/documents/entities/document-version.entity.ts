import { Check, Column, Entity, ForeignKey, Unique } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
  TriggerJsonColumn,
} from '../../../common/database/entity-columns.js';
import { DocumentEntity } from './document.entity.js';

export type VersionSource = 'platform' | 'external_revision';

@Entity('document_versions')
@Unique('document_versions_document_id_number_key', ['documentId', 'number'])
@Check('document_versions_number_check', 'number >= 1')
@Check('document_versions_content_hash_check', "content_hash ~ '^[0-9a-f]{64}$'")
@Check('document_versions_source_check', "source IN ('platform', 'external_revision')")
export class DocumentVersion {
  @IdColumn()
  id!: number;

  @TenantIdColumn('document_versions')
  tenantId!: number;

  @Column({ name: 'document_id', type: 'int' })
  @ForeignKey(() => DocumentEntity, { name: 'document_versions_document_id_fkey' })
  documentId!: number;

  @Column('int')
  number!: number;

  @Column('jsonb')
  content!: Record<string, unknown>;

  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;

  @Column('text')
  source!: VersionSource;

  @CreatedAtColumn()
  createdAt!: Date;

  /**
   * The row's entry of the version index as JSON text, written only by the trigger of migration
   * 1764003000000 (never by TypeORM) and read only by the index's SQL.
   */
  @TriggerJsonColumn('index_json')
  indexJson!: string;
}
