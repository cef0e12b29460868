import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { EntitlementOverride } from './entities/entitlement-override.entity.js';
import { Tenant } from './entities/tenant.entity.js';
import type { Entitlement } from '../../common/access/entitlements.js';
import type { Plan } from './plans.js';

export type TenantRow = Pick<Tenant, 'id' | 'name' | 'plan'>;

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

  /** At most `limit` tenants after the id `after`, oldest first. */
  pageTenants(after: number, limit: number): Promise<TenantPageRow[]> {
    const page = sql<TenantPageRow>`SELECT id, name, plan, created_at FROM tenants
      WHERE id > ${after} ORDER BY id LIMIT ${limit}`;
    return this.tx.ownerManager.query(page.text, page.values);
  }

  /**
   * How much a tenant has, for the platform's view of it: one statement, counts only (the auth,
   * projects and documents modules own these rows; nothing here reads more than their number).
   * Projects come from the per-tenant counters the projects module keeps; documents through the
   * tenant's projects (their index is by project). Undefined for an unknown tenant.
   */
  async countsOf(tenantId: number): Promise<TenantCountsRow | undefined> {
    const counts = sql<TenantCountsRow>`SELECT t.created_at,
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
      FROM tenants t WHERE t.id = ${tenantId}`;
    const rows: TenantCountsRow[] = await this.tx.ownerManager.query(counts.text, counts.values);
    return rows[0];
  }

  /** Whether the tenant exists (and now has `name`). In the current system transaction, if any. */
  async rename(tenantId: number, name: string): Promise<boolean> {
    const result = await this.tx.ownerManager
      .getRepository(Tenant)
      .update({ id: tenantId }, { name });
    return Boolean(result.affected);
  }

  /** Locks the tenant's row for the rest of the current transaction; whether it exists. */
  async lockTenant(tenantId: number): Promise<boolean> {
    const lock = sql`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`;
    const rows: unknown[] = await this.tx.ownerManager.query(lock.text, lock.values);
    return rows.length === 1;
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

  /** Applies the changes in order, in one transaction (the current system one, if any). */
  async changeOverrides(tenantId: number, changes: readonly OverrideChange[]): Promise<void> {
    const apply = async (m: EntityManager): Promise<void> => {
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
    };
    await this.tx.runAsSystem(() => apply(this.tx.ownerManager));
  }
}
