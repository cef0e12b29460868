// CommonJS on purpose: the testing kit (CommonJS, to load in any consumer's jest) requires this
// very list and the service imports it (scopes.ts), so both have the one list.

/** Every scope a client can be granted (`Scope`, `isScope`: scopes.ts). */
export const SCOPES = [
  'projects:read',
  'documents:read',
  'revisions:write',
  'locks:write',
  'webhooks:read',
  'webhooks:write',
] as const;
