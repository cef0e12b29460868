import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Tenant } from './tenant.entity.js';

@Entity('tenant_entitlement_overrides')
export class EntitlementOverride {
  @PrimaryColumn({ name: 'tenant_id', type: 'int' })
  @ForeignKey(() => Tenant, {
    name: 'tenant_entitlement_overrides_tenant_id_fkey',
    onDelete: 'CASCADE',
  })
  tenantId!: number;

  @PrimaryColumn('text')
  entitlement!: string;

  @Column('boolean')
  granted!: boolean;
}
