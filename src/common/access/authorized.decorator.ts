import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiOAuth2 } from '@nestjs/swagger';
import { ApiProblemResponses } from '../http/api-problem-responses.js';
import type { Entitlement } from './entitlements.js';
import type { Scope } from './scopes.js';

export const AUTHORIZATION = 'auth:requirement';

export interface AuthorizationRequirement {
  scope: Scope;
  entitlement: Entitlement;
}

/**
 * The one declaration of what a route needs: the guard enforces it and the OpenAPI document
 * shows it, so the two cannot drift apart.
 */
export function Authorized(
  requirement: AuthorizationRequirement,
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(AUTHORIZATION, requirement),
    ApiBearerAuth('bearer'),
    ApiOAuth2([requirement.scope], 'oauth2'),
    ApiProblemResponses(401, {
      status: 403,
      description: `Needs scope \`${requirement.scope}\` and entitlement \`${requirement.entitlement}\` (\`insufficient_scope\`, \`entitlement_required\`, \`ip_not_allowed\`).`,
    }),
  );
}
