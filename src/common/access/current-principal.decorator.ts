import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal.js';

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Principal => {
    const principal = ctx.switchToHttp().getRequest<{ user?: Principal }>().user;
    if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
    return principal;
  },
);
