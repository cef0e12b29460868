import { Check, Column, Entity, Index } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  TenantIdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';
import { EXTERNAL_ID_CHECK } from '../../../common/database/external-id.js';

export type ProjectStatus = 'active' | 'archived';

/** Insert, delete and truncate triggers keep `project_counts` (migration 1764002400000). */
@Entity('projects')
@Index('projects_tenant', ['tenantId', 'id'])
@Check('projects_status_check', "status IN ('active', 'archived')")
@Index('projects_external_id', ['tenantId', 'externalId'], {
  unique: true,
  where: 'external_id IS NOT NULL',
})
@Check('projects_external_id_check', EXTERNAL_ID_CHECK)
export class Project {
  @IdColumn()
  id!: number;

  @TenantIdColumn('projects')
  tenantId!: number;

  /** The host platform's own id of the row (migration 1764003300000); null when made otherwise. */
  @Column({ name: 'external_id', type: 'text', nullable: true })
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
  @Column({ name: 'summary_json', type: 'text', select: false, insert: false, update: false })
  summaryJson!: string;
}
