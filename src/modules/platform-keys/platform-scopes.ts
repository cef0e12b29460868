import { PLATFORM_SCOPES } from './platform-scope-list.cjs';

export { PLATFORM_SCOPES };

export type PlatformScope = (typeof PLATFORM_SCOPES)[number];

export const PLATFORM_SCOPE_DESCRIPTIONS: Record<PlatformScope, string> = {
  'platform:tenants': 'Create, list and change tenants and their plans',
  'platform:credentials': "Manage tenants' API clients and personal access tokens",
  'platform:content': "Upsert the platform's projects, documents, versions and files; import",
  'platform:reviews': 'List candidate revisions across tenants, accept and reject them',
  'platform:audit': "Read every tenant's audit trail",
  'platform:events': "Read every tenant's events, as a list or a stream",
};

export function isPlatformScope(value: string): value is PlatformScope {
  return (PLATFORM_SCOPES as readonly string[]).includes(value);
}
