import { Check, Column, Entity } from 'typeorm';
import {
  CreatedAtColumn,
  IdColumn,
  UpdatedAtColumn,
} from '../../../common/database/entity-columns.js';
import type { Plan } from '../plans.js';

@Entity('tenants')
@Check('tenants_name_check', 'length(name) BETWEEN 1 AND 200')
@Check('tenants_plan_check', "plan IN ('starter', 'professional', 'enterprise')")
export class Tenant {
  @IdColumn()
  id!: number;

  @Column('text')
  name!: string;

  @Column('text')
  plan!: Plan;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
