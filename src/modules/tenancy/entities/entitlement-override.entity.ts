import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('tenant_entitlement_overrides')
export class EntitlementOverride {
  @PrimaryColumn({ name: 'tenant_id', type: 'int' })
  tenantId!: number;

  @PrimaryColumn('text')
  entitlement!: string;

  @Column('boolean')
  granted!: boolean;
}
