import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CredentialCache } from '../../common/database/credential-cache.js';
import { NotFoundError } from '../../common/http/app-error.js';
import { EntitlementOverride } from './entities/entitlement-override.entity.js';
import { Tenant } from './entities/tenant.entity.js';
import {
  type Entitlement,
  effectiveEntitlements,
  type Plan,
} from '../../common/access/entitlements.js';

export interface TenantView {
  tenant_id: number;
  name: string;
  plan: Plan;
  entitlements: Entitlement[];
}

/** Tenants, their plans and entitlement overrides: administrator operations (CLI), owner role. */
@Injectable()
export class TenancyService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    // plan and entitlement changes reach every process by notification; this one at once
    private readonly credentialCache: CredentialCache,
  ) {}

  async create(name: string, plan: Plan): Promise<TenantView> {
    const tenant = await this.db.getRepository(Tenant).save({ name, plan });
    return this.view(tenant.id);
  }

  async setPlan(tenantId: number, plan: Plan): Promise<TenantView> {
    const result = await this.db.getRepository(Tenant).update({ id: tenantId }, { plan });
    if (!result.affected) throw new NotFoundError('tenant');
    this.credentialCache.invalidate();
    return this.view(tenantId);
  }

  /** Applies additions and removals (the last one of a name wins; `reset` returns to the plan). */
  async changeEntitlements(
    tenantId: number,
    changes: ReadonlyArray<{ entitlement: Entitlement; granted: boolean | null }>,
  ): Promise<TenantView> {
    await this.requireTenant(tenantId);
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
    this.credentialCache.invalidate();
    return this.view(tenantId);
  }

  async entitlementsOf(tenantId: number): Promise<Set<Entitlement>> {
    const tenant = await this.requireTenant(tenantId);
    const overrides = await this.db.getRepository(EntitlementOverride).findBy({ tenantId });
    return effectiveEntitlements(tenant.plan, overrides);
  }

  async view(tenantId: number): Promise<TenantView> {
    const tenant = await this.requireTenant(tenantId);
    const entitlements = await this.entitlementsOf(tenantId);
    return {
      tenant_id: tenant.id,
      name: tenant.name,
      plan: tenant.plan,
      entitlements: [...entitlements].sort(),
    };
  }

  private async requireTenant(tenantId: number): Promise<Tenant> {
    const tenant = await this.db.getRepository(Tenant).findOneBy({ id: tenantId });
    if (!tenant) throw new NotFoundError('tenant');
    return tenant;
  }
}
