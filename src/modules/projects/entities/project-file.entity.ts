import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';
import { EXTERNAL_ID_CHECK } from '../../../common/database/external-id.js';
import { Project } from './project.entity.js';

/** `bigint` arrives from pg as a string; sizes stay far below 2^53. */
const bigintAsNumber = {
  to: (value: number): number => value,
  from: (value: string | null): number | null => (value === null ? null : Number(value)),
};

@Entity('project_files')
@Index('project_files_project', ['projectId', 'id'])
@Check('project_files_size_bytes_check', 'size_bytes >= 0')
@Check('project_files_sha256_check', "sha256 ~ '^[0-9a-f]{64}$'")
@Index('project_files_external_id', ['tenantId', 'externalId'], {
  unique: true,
  where: 'external_id IS NOT NULL',
})
@Check('project_files_external_id_check', EXTERNAL_ID_CHECK)
export class ProjectFile {
  @IdColumn()
  id!: number;

  @TenantIdColumn('project_files')
  tenantId!: number;

  /** The host platform's own id of the row (migration 1764003300000); null when made otherwise. */
  @Column({ name: 'external_id', type: 'text', nullable: true })
  externalId!: string | null;

  @Column({ name: 'project_id', type: 'int' })
  @ForeignKey(() => Project, { name: 'project_files_project_id_fkey' })
  projectId!: number;

  @Column('text')
  name!: string;

  @Column({ name: 'media_type', type: 'text' })
  mediaType!: string;

  @Column({ name: 'size_bytes', type: 'bigint', transformer: bigintAsNumber })
  sizeBytes!: number;

  @Column({ type: 'text', nullable: true })
  sha256!: string | null;

  /** Where the bytes live (bucket, key, path, URL): never selected by default, never serialised. */
  @Column({ name: 'storage_location', type: 'text', select: false })
  storageLocation!: string;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
