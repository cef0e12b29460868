import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { TenantIdColumn } from '../../../common/database/entity-columns.js';

/**
 * A tenant's project count, striped over 16 slots; kept by statement triggers on `projects`
 * (migration 1764002400000), read as the sum of a tenant's rows.
 */
@Entity('project_counts')
@Check('project_counts_slot_check', 'slot >= 0 AND slot < 16')
export class ProjectCount {
  @TenantIdColumn('project_counts', { primary: true })
  tenantId!: number;

  @PrimaryColumn('smallint')
  slot!: number;

  /** `bigint` arrives from pg as a string; a slot may hold a negative share. */
  @Column('bigint')
  total!: string;
}
