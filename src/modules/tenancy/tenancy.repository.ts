import { Injectable } from '@nestjs/common';
import { sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { Entitlement } from '../../common/access/entitlements.js';
import type { Plan } from './plans.js';

export interface TenantRow {
  id: number;
  name: string;
  plan: Plan;
}

/** A tenant as a page of the platform's tenant list shows it. */
export interface TenantPageRow {
  id: number;
  name: string;
  plan: Plan;
  created_at: Date;
}

/** What the platform's view of one tenant counts beside its plan (read as the owner role). */
export interface TenantCountsRow {
  created_at: Date;
  clients: number;
  clients_enabled: number;
  pats: number;
  pats_active: number;
  projects: number;
  documents: number;
}

/** One of a tenant's additions (`granted`) or removals against its plan. */
export interface OverrideRow {
  entitlement: string;
  granted: boolean;
}

/** One override to apply: `granted: null` removes it (back to the plan). */
export interface OverrideChange {
  entitlement: Entitlement;
  granted: boolean | null;
}

/**
 * Tenants and their entitlement overrides, as the owner role (administrator paths), in the
 * current system transaction if there is one (TenantTransactions.ownerQuery).
 */
@Injectable()
export class TenancyRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /** Whether any tenant exists, across tenants (a first start seeds the demo when none does). */
  async anyTenant(): Promise<boolean> {
    const [row] = await this.tx.ownerQuery(
      sql<{ exists: boolean }>`SELECT EXISTS (SELECT 1 FROM tenants) AS exists`,
    );
    return row?.exists === true;
  }

  /** Every tenant, oldest first. */
  listTenants(): Promise<TenantRow[]> {
    return this.tx.ownerQuery(sql<TenantRow>`SELECT id, name, plan FROM tenants ORDER BY id`);
  }

  /** At most `limit` tenants after the id `after`, oldest first. */
  pageTenants(after: number, limit: number): Promise<TenantPageRow[]> {
    return this.tx.ownerQuery(sql<TenantPageRow>`SELECT id, name, plan, created_at FROM tenants
      WHERE id > ${after} ORDER BY id LIMIT ${limit}`);
  }

  /**
   * How much a tenant has, for the platform's view of it: one statement, counts only (the auth,
   * projects and documents modules own these rows; nothing here reads more than their number).
   * Projects come from the per-tenant counters the projects module keeps; documents through the
   * tenant's projects (their index is by project). Undefined for an unknown tenant.
   */
  async countsOf(tenantId: number): Promise<TenantCountsRow | undefined> {
    const [row] = await this.tx.ownerQuery(sql<TenantCountsRow>`SELECT t.created_at,
        (SELECT count(*)::int FROM api_clients c WHERE c.tenant_id = t.id) AS clients,
        (SELECT count(*)::int FROM api_clients c WHERE c.tenant_id = t.id AND c.enabled)
          AS clients_enabled,
        (SELECT count(*)::int FROM personal_access_tokens p WHERE p.tenant_id = t.id) AS pats,
        (SELECT count(*)::int FROM personal_access_tokens p WHERE p.tenant_id = t.id
           AND p.revoked_at IS NULL AND p.expires_at > now()) AS pats_active,
        (SELECT COALESCE(sum(n.total), 0)::int FROM project_counts n WHERE n.tenant_id = t.id)
          AS projects,
        (SELECT count(*)::int FROM documents d
           WHERE d.project_id IN (SELECT p.id FROM projects p WHERE p.tenant_id = t.id))
          AS documents
      FROM tenants t WHERE t.id = ${tenantId}`);
    return row;
  }

  /** Whether the tenant exists (and now has `name`). In the current system transaction, if any. */
  async rename(tenantId: number, name: string): Promise<boolean> {
    const rows = await this.tx.ownerQuery(sql`UPDATE tenants SET name = ${name},
      updated_at = CURRENT_TIMESTAMP WHERE id = ${tenantId} RETURNING id`);
    return rows.length === 1;
  }

  /** Locks the tenant's row for the rest of the current transaction; whether it exists. */
  async lockTenant(tenantId: number): Promise<boolean> {
    const rows = await this.tx.ownerQuery(sql`SELECT id FROM tenants WHERE id = ${tenantId}
      FOR UPDATE`);
    return rows.length === 1;
  }

  async insertTenant(name: string, plan: Plan): Promise<number> {
    const [row] = await this.tx.ownerQuery(sql<{ id: number }>`INSERT INTO tenants (name, plan)
      VALUES (${name}, ${plan}) RETURNING id`);
    return row!.id;
  }

  /** Whether the tenant exists (and now has `plan`). */
  async updatePlan(tenantId: number, plan: Plan): Promise<boolean> {
    const rows = await this.tx.ownerQuery(sql`UPDATE tenants SET plan = ${plan},
      updated_at = CURRENT_TIMESTAMP WHERE id = ${tenantId} RETURNING id`);
    return rows.length === 1;
  }

  async findTenant(tenantId: number): Promise<TenantRow | null> {
    const [row] = await this.tx.ownerQuery(
      sql<TenantRow>`SELECT id, name, plan FROM tenants WHERE id = ${tenantId}`,
    );
    return row ?? null;
  }

  overridesOf(tenantId: number): Promise<OverrideRow[]> {
    return this.tx.ownerQuery(sql<OverrideRow>`SELECT entitlement, granted
      FROM tenant_entitlement_overrides WHERE tenant_id = ${tenantId}`);
  }

  /** Applies the changes in order, in one transaction (the current system one, if any). */
  async changeOverrides(tenantId: number, changes: readonly OverrideChange[]): Promise<void> {
    await this.tx.runAsSystem(async () => {
      for (const { entitlement, granted } of changes) {
        await this.tx.ownerQuery(
          granted === null
            ? sql`DELETE FROM tenant_entitlement_overrides
                WHERE tenant_id = ${tenantId} AND entitlement = ${entitlement}`
            : sql`INSERT INTO tenant_entitlement_overrides (tenant_id, entitlement, granted)
                VALUES (${tenantId}, ${entitlement}, ${granted})
                ON CONFLICT (tenant_id, entitlement) DO UPDATE SET granted = EXCLUDED.granted`,
        );
      }
    });
  }
}
