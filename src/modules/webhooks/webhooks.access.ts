/** What the webhook routes require: their scope, and the tenant's entitlement. */
export const READ = { scope: 'webhooks:read', entitlement: 'api.webhooks' } as const;
export const WRITE = { scope: 'webhooks:write', entitlement: 'api.webhooks' } as const;
