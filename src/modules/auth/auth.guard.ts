import { type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type {
  HttpPlatform,
  HttpRequest as Request,
} from '../../common/http/platform/http-platform.js';
import { HTTP_PLATFORM } from '../../common/http/platform/http-platform.module.js';
import { InvalidTokenError, UnauthenticatedError } from './auth.errors.js';
import { authorize } from './authorization.js';
import { bearerToken, usesBearerScheme } from '../../common/http/bearer-header.js';
import {
  AUTHORIZATION,
  type AuthorizationRequirement,
} from '../../common/access/authorized.decorator.js';
import { recordVerifiedCredential } from './credential-freshness.js';
import { CredentialsService } from './credentials.service.js';
import { RouteRequirements } from './route-requirements.js';
import type { Principal } from '../../common/access/principal.js';
import { IS_PUBLIC } from '../../common/access/public.decorator.js';

/**
 * Global and deny-by-default: a route is open only with `@Public()`. Checks run in the order of
 * docs/integrators/errors.md — token, IP allowlist, scope, entitlement — before any validation or data access.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard('bearer') {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialsService,
    private readonly requirements: RouteRequirements,
    // absent where no HTTP server runs (the CLI's modules)
    @Optional() @Inject(HTTP_PLATFORM) private readonly platform?: HttpPlatform,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    const { authorization } = req.headers;
    if (!usesBearerScheme(authorization)) throw new UnauthenticatedError();
    const token = bearerToken(authorization);
    // the contract takes the token from a Bearer header only: passport-http-bearer would also take
    // `access_token` from the query string or the body when the header has another scheme
    if (!token) throw new InvalidTokenError();
    // RFC 6750 allows one or more spaces after the scheme; passport-http-bearer splits on exactly
    // one, so it is handed the header in that form
    (req.headers as Record<string, string>).authorization = `Bearer ${token}`;
    await super.canActivate(context);
    const principal = req.user!;
    const requirement = this.reflector.getAllAndOverride<AuthorizationRequirement | undefined>(
      AUTHORIZATION,
      targets,
    );
    // the body admission refuses the next caller lacking it before reading their body
    this.requirements.learn(req.method, this.platform?.routeOf(req), requirement);
    authorize(req.ip, principal, requirement);
    recordVerifiedCredential({
      generation: principal.generation,
      // the same checks against the database's current rows; throws their 401/403
      reverify: async () => {
        const fresh = await this.credentials.authenticate(token, { fresh: true });
        if (!fresh) throw new InvalidTokenError();
        authorize(req.ip, fresh, requirement);
        return fresh.generation;
      },
    });
    return true;
  }

  override handleRequest<T>(err: unknown, user: T | false): T {
    if (err) throw err instanceof Error ? err : new InvalidTokenError();
    if (!user) throw new InvalidTokenError();
    return user;
  }
}
