export const SCOPES = [
  'projects:read',
  'documents:read',
  'revisions:write',
  'locks:write',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
