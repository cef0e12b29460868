import { Check, Column, Entity, Index } from 'typeorm';
import {
  CreatedAtColumn,
  ExternalIdColumn,
  ExternalIdConstraints,
  IdColumn,
  TenantIdColumn,
  TriggerJsonColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';

export type ProjectStatus = 'active' | 'archived';

/** Insert, delete and truncate triggers keep `project_counts` (migration 1764002400000). */
@Entity('projects')
@Index('projects_tenant', ['tenantId', 'id'])
@Check('projects_status_check', "status IN ('active', 'archived')")
@ExternalIdConstraints('projects')
export class Project {
  @IdColumn()
  id!: number;

  @TenantIdColumn('projects')
  tenantId!: number;

  @ExternalIdColumn()
  externalId!: string | null;

  @Column('text')
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'text', default: 'active' })
  status!: ProjectStatus;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;

  /**
   * The row's `GET /projects` item as JSON text, written only by the trigger of migration
   * 1764003100000 (never by TypeORM) and read only by the page's SQL.
   */
  @TriggerJsonColumn('summary_json')
  summaryJson!: string;
}
