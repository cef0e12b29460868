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

export type ProjectStatus = 'active' | 'archived';

/** Insert, delete and truncate triggers keep `project_counts` (migration 1764002400000). */
@Entity('projects')
@Index('projects_tenant', ['tenantId', 'id'])
@Check('projects_status_check', "status IN ('active', 'archived')")
export class Project {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'tenant_id', type: 'int' })
  @ForeignKey('tenants', { name: 'projects_tenant_id_fkey' })
  tenantId!: number;

  @Column('text')
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'text', default: 'active' })
  status!: ProjectStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
