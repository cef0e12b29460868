import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { EntitlementRequiredError } from '../tenancy/tenancy.errors.js';
import {
  InsufficientScopeError,
  InvalidTokenError,
  IpNotAllowedError,
  UnauthenticatedError,
} from './auth.errors.js';
import { AUTHORIZATION, type AuthorizationRequirement } from './authorized.decorator.js';
import { ipAllowed } from './ip-allowlist.js';
import type { Principal } from './principal.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Global and deny-by-default: a route is open only with `@Public()`. Checks run in the order of
 * CONTRACT.md §2 — token, IP allowlist, scope, entitlement — before any validation or data access.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    if (!req.headers.authorization) throw new UnauthenticatedError();
    await super.canActivate(context);
    const principal = req.user!;

    if (!ipAllowed(req.ip, principal.allowedIps)) throw new IpNotAllowedError();
    const requirement = this.reflector.getAllAndOverride<AuthorizationRequirement | undefined>(
      AUTHORIZATION,
      targets,
    );
    if (requirement && !principal.scopes.has(requirement.scope)) {
      throw new InsufficientScopeError(requirement.scope);
    }
    if (principal.credential.kind === 'pat' && !principal.entitlements.has('auth.pat')) {
      throw new EntitlementRequiredError('auth.pat');
    }
    if (requirement && !principal.entitlements.has(requirement.entitlement)) {
      throw new EntitlementRequiredError(requirement.entitlement);
    }
    return true;
  }

  override handleRequest<T>(err: unknown, user: T | false): T {
    if (err) throw err instanceof Error ? err : new InvalidTokenError();
    if (!user) throw new InvalidTokenError();
    return user;
  }
}
