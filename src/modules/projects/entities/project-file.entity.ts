import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** `bigint` arrives from pg as a string; sizes stay far below 2^53. */
const bigintAsNumber = {
  to: (value: number): number => value,
  from: (value: string | null): number | null => (value === null ? null : Number(value)),
};

@Entity('project_files')
export class ProjectFile {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'project_id', type: 'int' })
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
