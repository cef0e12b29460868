/** Every scope a client can hold; `createTenant` grants all unless told otherwise. */
export const ALL_SCOPES = [
  'projects:read',
  'documents:read',
  'revisions:write',
  'locks:write',
  'webhooks:read',
  'webhooks:write',
] as const;
