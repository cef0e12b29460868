import { type Entitlement, ENTITLEMENTS, isEntitlement } from '../../common/access/entitlements.js';

/** The plans a tenant can be on, and what each grants: the tenancy context's rules. */
export const PLANS = ['starter', 'professional', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** What each plan grants before per-tenant additions and removals (README, "Errors"). */
export const PLAN_ENTITLEMENTS: Record<Plan, readonly Entitlement[]> = {
  starter: ['api.read'],
  professional: ['api.read', 'api.revisions', 'api.locks', 'auth.ip_allowlist'],
  enterprise: ENTITLEMENTS, // every entitlement there is
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** The plan's entitlements, plus the tenant's additions, minus its removals. */
export function effectiveEntitlements(
  plan: Plan,
  overrides: ReadonlyArray<{ entitlement: string; granted: boolean }>,
): Set<Entitlement> {
  const result = new Set<Entitlement>(PLAN_ENTITLEMENTS[plan]);
  for (const o of overrides) {
    if (!isEntitlement(o.entitlement)) continue;
    if (o.granted) result.add(o.entitlement);
    else result.delete(o.entitlement);
  }
  return result;
}
