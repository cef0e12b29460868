/** Every scope a client can hold; `createTenant` grants all unless told otherwise. */
export const ALL_SCOPES = [
  'projects:read',
  'documents:read',
  'revisions:write',
  'locks:write',
  'webhooks:read',
  'webhooks:write',
] as const;

/** Every scope a platform key can hold; the kit's own key (`api.platform`) has them all. */
export const ALL_PLATFORM_SCOPES = [
  'platform:tenants',
  'platform:credentials',
  'platform:content',
  'platform:reviews',
  'platform:audit',
  'platform:events',
] as const;
