// CommonJS on purpose: the testing kit (CommonJS, to load in any consumer's jest) requires this
// very list and the service imports it (platform-scopes.ts), so both have the one list.

/** What a platform key may be allowed, one scope per group of platform routes. */
export const PLATFORM_SCOPES = [
  'platform:tenants',
  'platform:credentials',
  'platform:content',
  'platform:reviews',
  'platform:audit',
  'platform:events',
] as const;
