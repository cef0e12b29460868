import type { AuthorizationRequirement } from '../../common/access/authorized.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import { EntitlementRequiredError } from '../tenancy/tenancy.errors.js';
import { InsufficientScopeError, IpNotAllowedError } from './auth.errors.js';
import { ipAllowed } from './ip-allowlist.js';

/** The order after authentication (docs/integrators/errors.md): IP allowlist, scope, entitlement. */
export function authorize(
  ip: string | undefined,
  principal: Principal,
  requirement: AuthorizationRequirement | undefined,
): void {
  if (!ipAllowed(ip, principal.allowedIps)) throw new IpNotAllowedError();
  if (requirement && !principal.scopes.has(requirement.scope)) {
    throw new InsufficientScopeError(requirement.scope);
  }
  if (principal.credential.kind === 'pat' && !principal.entitlements.has('auth.pat')) {
    throw new EntitlementRequiredError('auth.pat');
  }
  if (requirement && !principal.entitlements.has(requirement.entitlement)) {
    throw new EntitlementRequiredError(requirement.entitlement);
  }
}

/** Whether `authorize` lets the principal through. */
export function permits(
  ip: string | undefined,
  principal: Principal,
  requirement: AuthorizationRequirement | undefined,
): boolean {
  try {
    authorize(ip, principal, requirement);
    return true;
  } catch {
    return false;
  }
}
