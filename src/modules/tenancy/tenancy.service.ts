import { Injectable } from '@nestjs/common';
import {
  type FieldError,
  NotFoundError,
  ValidationFailedError,
} from '../../common/http/app-error.js';
import { type Entitlement, ENTITLEMENTS, isEntitlement } from '../../common/access/entitlements.js';
import { effectiveEntitlements, type Plan } from './plans.js';
import { TenantDirectory } from '../../common/access/tenant-directory.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../common/pagination/cursor.js';
import {
  type OverrideChange,
  TenancyRepository,
  type TenantCountsRow,
  type TenantRow,
} from './tenancy.repository.js';

export interface TenantView {
  tenant_id: number;
  name: string;
  plan: Plan;
  entitlements: Entitlement[];
}

/** A tenant in the platform's paged list. */
export interface TenantListItem {
  tenant_id: number;
  name: string;
  plan: Plan;
  created_at: string;
}

/** One tenant as the platform sees it: its plan, what it may do and why, and how much it has. */
export interface TenantDetail extends TenantView {
  /** The tenant's own additions (`granted: true`) and removals (`false`) against its plan. */
  overrides: Array<{ entitlement: Entitlement; granted: boolean }>;
  created_at: string;
  counts: Omit<TenantCountsRow, 'created_at'>;
}

/** Entitlement changes as named lists: grant beyond the plan, withhold, back to the plan. */
export interface EntitlementChanges {
  add?: readonly string[];
  remove?: readonly string[];
  reset?: readonly string[];
}

export interface TenantUpdate {
  name?: string;
  plan?: Plan;
  entitlements?: EntitlementChanges;
}

export const TENANT_NAME_MAX = 200;

/** The platform's tenant list walks every tenant: its cursors belong to no tenant (0). */
const TENANT_LIST: ListIdentity = { tenantId: 0, list: 'platform.tenants' };

/** A tenant's name without surrounding white space, 1..200 characters. */
function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > TENANT_NAME_MAX) {
    throw new ValidationFailedError([
      { field: 'name', message: `must be 1..${TENANT_NAME_MAX} characters` },
    ]);
  }
  return trimmed;
}

/**
 * Named lists of entitlement changes as the ordered changes `changeEntitlements` applies. Lists
 * have no order between them, so an entitlement named in two of them (or twice) is refused rather
 * than guessed at; unknown names are refused too. Every problem at once, as field errors.
 */
export function entitlementChangesOf(changes: EntitlementChanges): OverrideChange[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, string>();
  const out: OverrideChange[] = [];
  const lists = [
    ['add', changes.add, true],
    ['remove', changes.remove, false],
    ['reset', changes.reset, null],
  ] as const;
  for (const [list, names, granted] of lists) {
    (names ?? []).forEach((name, i) => {
      const field = `entitlements.${list}[${i}]`;
      if (!isEntitlement(name)) {
        errors.push({ field, message: `unknown entitlement (known: ${ENTITLEMENTS.join(', ')})` });
        return;
      }
      const earlier = seen.get(name);
      if (earlier) {
        errors.push({ field, message: `${name} is already named in ${earlier}` });
        return;
      }
      seen.set(name, field);
      out.push({ entitlement: name, granted });
    });
  }
  if (errors.length) throw new ValidationFailedError(errors);
  return out;
}

/**
 * Tenants, their plans and entitlement overrides: administrator operations (the CLI and the
 * platform API call these same methods), owner role.
 */
@Injectable()
export class TenancyService implements TenantDirectory {
  private readonly changeListeners: Array<() => void> = [];

  constructor(
    private readonly repository: TenancyRepository,
    private readonly tx: TenantTransactions,
  ) {}

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

  /** One page of every tenant, oldest first (the platform's `GET /tenants`). */
  async page(query: { cursor?: string; limit: number }): Promise<CursorPage<TenantListItem>> {
    const [after = 0] = Cursor.decode(TENANT_LIST, query.cursor) ?? [];
    const rows = await this.repository.pageTenants(after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      data: page.map((t) => ({
        tenant_id: t.id,
        name: t.name,
        plan: t.plan,
        created_at: t.created_at.toISOString(),
      })),
      next_cursor: rows.length > query.limit && last ? Cursor.encode(TENANT_LIST, [last.id]) : null,
    };
  }

  async create(name: string, plan: Plan): Promise<TenantView> {
    return this.view(await this.repository.insertTenant(checkedName(name), plan));
  }

  /** `create`, answered with the detail (the platform's `POST /tenants`). */
  async createDetailed(name: string, plan: Plan): Promise<TenantDetail> {
    const { tenant_id } = await this.create(name, plan);
    return this.detail(tenant_id);
  }

  async setPlan(tenantId: number, plan: Plan): Promise<TenantView> {
    await this.apply(tenantId, { plan, overrides: [] });
    return this.view(tenantId);
  }

  /** Applies additions and removals (the last one of a name wins; `reset` returns to the plan). */
  async changeEntitlements(
    tenantId: number,
    changes: readonly OverrideChange[],
  ): Promise<TenantView> {
    await this.apply(tenantId, { overrides: changes });
    return this.view(tenantId);
  }

  /**
   * Renames, changes the plan and the entitlement overrides of a tenant, all in one transaction
   * (the platform's `PATCH /tenants/{tenantId}`); then its detail. Nothing asked: the detail.
   */
  async update(tenantId: number, update: TenantUpdate): Promise<TenantDetail> {
    const overrides = entitlementChangesOf(update.entitlements ?? {});
    const name = update.name === undefined ? undefined : checkedName(update.name);
    await this.apply(tenantId, { name, plan: update.plan, overrides });
    return this.detail(tenantId);
  }

  async entitlementsOf(tenantId: number): Promise<Set<Entitlement>> {
    const tenant = await this.requireTenant(tenantId);
    const overrides = await this.repository.overridesOf(tenantId);
    return effectiveEntitlements(tenant.plan, overrides);
  }

  /** Throws 404 `not_found` (tenant) unless the tenant exists (TenantDirectory). */
  async assertExists(tenantId: number): Promise<void> {
    await this.requireTenant(tenantId);
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

  /** The view with the tenant's overrides and counts (the platform's `GET /tenants/{tenantId}`). */
  async detail(tenantId: number): Promise<TenantDetail> {
    const view = await this.view(tenantId);
    const [overrides, counts] = await Promise.all([
      this.repository.overridesOf(tenantId),
      this.repository.countsOf(tenantId),
    ]);
    if (!counts) throw new NotFoundError('tenant');
    const { created_at, ...numbers } = counts;
    return {
      ...view,
      overrides: overrides
        .filter((o): o is typeof o & { entitlement: Entitlement } => isEntitlement(o.entitlement))
        .map((o) => ({ entitlement: o.entitlement, granted: o.granted }))
        .sort((a, b) => a.entitlement.localeCompare(b.entitlement)),
      created_at: created_at.toISOString(),
      counts: numbers,
    };
  }

  /**
   * The one write path of a tenant's name, plan and overrides, for the CLI's commands and the
   * platform's PATCH alike: one transaction with the tenant's row locked (404 before any change).
   */
  private async apply(
    tenantId: number,
    change: { name?: string; plan?: Plan; overrides: readonly OverrideChange[] },
  ): Promise<void> {
    await this.tx.runAsSystem(async () => {
      if (!(await this.repository.lockTenant(tenantId))) throw new NotFoundError('tenant');
      if (change.name !== undefined) await this.repository.rename(tenantId, change.name);
      if (change.plan !== undefined) await this.repository.updatePlan(tenantId, change.plan);
      if (change.overrides.length)
        await this.repository.changeOverrides(tenantId, change.overrides);
    });
    if (change.plan !== undefined || change.overrides.length) this.changed();
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
