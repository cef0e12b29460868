import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../common/http/app-error.js';
import {
  type Entitlement,
  effectiveEntitlements,
  type Plan,
} from '../../common/access/entitlements.js';
import { type OverrideChange, TenancyRepository, type TenantRow } from './tenancy.repository.js';

export interface TenantView {
  tenant_id: number;
  name: string;
  plan: Plan;
  entitlements: Entitlement[];
}

/** Tenants, their plans and entitlement overrides: administrator operations (CLI), owner role. */
@Injectable()
export class TenancyService {
  private readonly changeListeners: Array<() => void> = [];

  constructor(private readonly repository: TenancyRepository) {}

  /**
   * Calls `listener` after each plan or entitlement change this process commits (the auth module
   * empties its credential cache: other processes hear of it by the database's notification).
   */
  onEntitlementsChanged(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /** Whether any tenant exists at all (system-wide: first start). */
  anyTenantExists(): Promise<boolean> {
    return this.repository.anyTenant();
  }

  /** Every tenant with its plan, oldest first (`tenant list`). */
  async list(): Promise<{ data: Array<{ tenant_id: number; name: string; plan: Plan }> }> {
    const rows = await this.repository.listTenants();
    return { data: rows.map((t) => ({ tenant_id: t.id, name: t.name, plan: t.plan })) };
  }

  async create(name: string, plan: Plan): Promise<TenantView> {
    return this.view(await this.repository.insertTenant(name, plan));
  }

  async setPlan(tenantId: number, plan: Plan): Promise<TenantView> {
    if (!(await this.repository.updatePlan(tenantId, plan))) throw new NotFoundError('tenant');
    this.changed();
    return this.view(tenantId);
  }

  /** Applies additions and removals (the last one of a name wins; `reset` returns to the plan). */
  async changeEntitlements(
    tenantId: number,
    changes: readonly OverrideChange[],
  ): Promise<TenantView> {
    await this.requireTenant(tenantId);
    await this.repository.changeOverrides(tenantId, changes);
    this.changed();
    return this.view(tenantId);
  }

  async entitlementsOf(tenantId: number): Promise<Set<Entitlement>> {
    const tenant = await this.requireTenant(tenantId);
    const overrides = await this.repository.overridesOf(tenantId);
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

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  private async requireTenant(tenantId: number): Promise<TenantRow> {
    const tenant = await this.repository.findTenant(tenantId);
    if (!tenant) throw new NotFoundError('tenant');
    return tenant;
  }
}
