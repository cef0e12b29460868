import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type DocumentStatus = 'active' | 'archived';

@Entity('documents')
export class DocumentEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @Column({ name: 'project_id', type: 'int' })
  projectId!: number;

  @Column('text')
  title!: string;

  @Column('text')
  status!: DocumentStatus;

  @Column({ name: 'current_version_id', type: 'int', nullable: true })
  currentVersionId!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /**
   * The row's `GET /projects/{id}/documents` item as JSON text, written only by the trigger of
   * migration 1764002900000 (never by TypeORM) and read only by the page's SQL.
   */
  @Column({ name: 'summary_json', type: 'text', select: false, insert: false, update: false })
  summaryJson!: string;
}
