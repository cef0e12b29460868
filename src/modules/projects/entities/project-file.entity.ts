import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
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
export class ProjectFile {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'project_files_tenant_id_fkey' })
  tenantId!: number;

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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
