/**
 * The entitlement names routes require (`@Authorized`) and principals carry. Which plan grants
 * which is the tenancy context's rule (src/modules/tenancy/plans.ts).
 */
export const ENTITLEMENTS = [
  'api.read',
  'api.revisions',
  'api.locks',
  'api.webhooks',
  'auth.pat',
  'auth.ip_allowlist',
] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

export function isEntitlement(value: string): value is Entitlement {
  return (ENTITLEMENTS as readonly string[]).includes(value);
}
