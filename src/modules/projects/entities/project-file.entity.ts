import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  CreatedAtColumn,
  ExternalIdColumn,
  ExternalIdConstraints,
  IdColumn,
  TenantIdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';
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
@ExternalIdConstraints('project_files')
export class ProjectFile {
  @IdColumn()
  id!: number;

  @TenantIdColumn('project_files')
  tenantId!: number;

  @ExternalIdColumn()
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
