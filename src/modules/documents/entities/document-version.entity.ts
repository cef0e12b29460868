import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type VersionSource = 'platform' | 'external_revision';

@Entity('document_versions')
export class DocumentVersion {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'document_id', type: 'int' })
  documentId!: number;

  @Column('int')
  number!: number;

  @Column('jsonb')
  content!: Record<string, unknown>;

  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;

  @Column('text')
  source!: VersionSource;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
