import { type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { IS_PUBLIC } from '../common/access/public.decorator.js';
import { bearerToken, usesBearerScheme } from '../common/http/bearer-header.js';
import type { HttpPlatform } from '../common/http/platform/http-platform.js';
import { HTTP_PLATFORM } from '../common/http/platform/http-platform.module.js';
import { attachAuditLocals } from '../modules/audit/audited.decorator.js';
import { recordVerifiedCredential } from '../modules/auth/credential-freshness.js';
import {
  ACTING_USER_HEADER,
  actingUserOf,
  PLATFORM_SCOPE,
  type PlatformRequest,
} from '../modules/platform-keys/platform-access.js';
import {
  InvalidPlatformKeyError,
  PlatformKeyRequiredError,
  PlatformScopeError,
} from '../modules/platform-keys/platform-keys.errors.js';
import type { PlatformKeyPrincipal } from '../modules/platform-keys/platform-keys.service.js';
import type { PlatformScope } from '../modules/platform-keys/platform-scopes.js';
import { PlatformBodyAdmission } from './platform-body-admission.js';
import { PlatformKeyVerifier } from './platform-key-verifier.js';

/**
 * The platform API's global guard, deny by default: a `gpk_…` key (401), then the route's scope
 * (403). A tenant's token or PAT is not a platform key: 401 here, as a platform key is on the
 * integration API. The audit line of a write names the key and the acting user.
 */
@Injectable()
export class PlatformKeyGuard extends AuthGuard('platform-key') {
  constructor(
    private readonly reflector: Reflector,
    private readonly admission: PlatformBodyAdmission,
    private readonly keys: PlatformKeyVerifier,
    @Inject(HTTP_PLATFORM) private readonly platform: HttpPlatform,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<PlatformRequest & { user?: unknown }>();
    const { authorization } = req.headers;
    if (!usesBearerScheme(authorization)) throw new PlatformKeyRequiredError();
    const token = bearerToken(authorization);
    if (!token) throw new InvalidPlatformKeyError();
    // the body admission has looked the key up already where the request has a body
    if (!req.platformKey) {
      (req.headers as Record<string, string>).authorization = `Bearer ${token}`;
      await super.canActivate(context);
      req.platformKey = req.user as PlatformKeyPrincipal;
    }
    const key = req.platformKey;
    const scope = this.reflector.getAllAndOverride<PlatformScope | undefined>(
      PLATFORM_SCOPE,
      targets,
    );
    this.admission.learn(req.method, this.platform.routeOf(req), scope);
    if (scope && !key.scopes.has(scope)) throw new PlatformScopeError(scope);
    // the key may have come from memory: a tenant transaction that opens after a credential
    // change has committed verifies it again from the database (credential-freshness.ts)
    recordVerifiedCredential({
      generation: key.generation,
      reverify: async () => {
        const fresh = await this.keys.verify(token, { fresh: true });
        if (!fresh) throw new InvalidPlatformKeyError();
        if (scope && !fresh.scopes.has(scope)) throw new PlatformScopeError(scope);
        return fresh.generation;
      },
    });
    let actor: string | null = null;
    if (req.headers[ACTING_USER_HEADER] !== undefined) {
      try {
        actor = actingUserOf(req);
      } catch {
        actor = null;
      }
    }
    attachAuditLocals(req, { credentialRef: `platform:${key.name}`, actor });
    return true;
  }

  override handleRequest<T>(err: unknown, user: T | false): T {
    if (err) throw err instanceof Error ? err : new InvalidPlatformKeyError();
    if (!user) throw new InvalidPlatformKeyError();
    return user;
  }
}
