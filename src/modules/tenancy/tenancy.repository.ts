import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { EntitlementOverride } from './entities/entitlement-override.entity.js';
import { Tenant } from './entities/tenant.entity.js';
import type { Entitlement, Plan } from '../../common/access/entitlements.js';

export type TenantRow = Pick<Tenant, 'id' | 'name' | 'plan'>;

/** One override to apply: `granted: null` removes it (back to the plan). */
export interface OverrideChange {
  entitlement: Entitlement;
  granted: boolean | null;
}

/**
 * Tenants and their entitlement overrides, as the owner role (administrator paths), in the
 * current system transaction if there is one (TenantTransactions.ownerManager).
 */
@Injectable()
export class TenancyRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly tx: TenantTransactions,
  ) {}

  /** Whether any tenant exists, across tenants (a first start seeds the demo when none does). */
  async anyTenant(): Promise<boolean> {
    const rows: Array<{ exists: boolean }> = await this.db.query(
      'SELECT EXISTS (SELECT 1 FROM tenants) AS exists',
    );
    return rows[0]?.exists === true;
  }

  /** Every tenant, oldest first. */
  listTenants(): Promise<TenantRow[]> {
    return this.tx.ownerManager
      .getRepository(Tenant)
      .find({ select: { id: true, name: true, plan: true }, order: { id: 'ASC' } });
  }

  async insertTenant(name: string, plan: Plan): Promise<number> {
    const tenant = await this.tx.ownerManager.getRepository(Tenant).save({ name, plan });
    return tenant.id;
  }

  /** Whether the tenant exists (and now has `plan`). */
  async updatePlan(tenantId: number, plan: Plan): Promise<boolean> {
    const result = await this.tx.ownerManager
      .getRepository(Tenant)
      .update({ id: tenantId }, { plan });
    return Boolean(result.affected);
  }

  findTenant(tenantId: number): Promise<TenantRow | null> {
    return this.tx.ownerManager.getRepository(Tenant).findOneBy({ id: tenantId });
  }

  overridesOf(tenantId: number): Promise<EntitlementOverride[]> {
    return this.tx.ownerManager.getRepository(EntitlementOverride).findBy({ tenantId });
  }

  /** Applies the changes in order, in one transaction. */
  async changeOverrides(tenantId: number, changes: readonly OverrideChange[]): Promise<void> {
    await this.db.transaction(async (m) => {
      for (const c of changes) {
        if (c.granted === null) {
          await m.delete(EntitlementOverride, { tenantId, entitlement: c.entitlement });
        } else {
          await m.upsert(
            EntitlementOverride,
            { tenantId, entitlement: c.entitlement, granted: c.granted },
            ['tenantId', 'entitlement'],
          );
        }
      }
    });
  }
}
