/**
 * Whether a tenant exists, for the contexts that tenancy itself builds on (the audit trail, whose
 * decorator tenancy's routes carry) and that still take a tenant id from a caller. The tenancy
 * module provides it (TenancyService); those contexts are handed it instead of importing tenancy,
 * which would make the two depend on each other.
 */
export abstract class TenantDirectory {
  /** Throws the 404 `not_found` (tenant) when there is no tenant `tenantId`. */
  abstract assertExists(tenantId: number): Promise<void>;
}
