import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { from, type Observable, switchMap } from 'rxjs';
import { NotFoundError } from '../../common/http/app-error.js';
import type { HttpRequest } from '../../common/http/platform/http-platform.js';
import { attachAuditLocals, auditLocalsOf } from './audit-metadata.js';

/** The tenant a platform route's answer names (`tenant_id`), for its audit line. */
export function tenantOfAnswer(_req: HttpRequest, body: unknown): number | null {
  return (body as { tenant_id?: number } | undefined)?.tenant_id ?? null;
}

/**
 * Platform routes addressed by a row's id (a client, a PAT, a project, a document) name no tenant,
 * and a platform key may act on any: the row's own tenant is looked up before the handler and
 * left for the audit line, so that a refusal (a stale If-Match, a disabled client's rotation, a
 * bad body) is filed under the right tenant too. An id `tenantOf` does not take, or an unknown
 * one, leaves none; the route answers it as it would.
 */
export abstract class RouteTenantInterceptor implements NestInterceptor {
  /** The tenant of the row the path parameters name; undefined (or NotFoundError) for none. */
  protected abstract tenantOf(params: Record<string, string>): Promise<number | undefined>;

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<HttpRequest>();
    return from(this.lookUp(req)).pipe(switchMap(() => next.handle()));
  }

  private async lookUp(req: HttpRequest): Promise<void> {
    let tenant: number | undefined;
    try {
      tenant = await this.tenantOf(req.params as Record<string, string>);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
    if (tenant === undefined) return;
    const locals = auditLocalsOf(req);
    locals.tenantId = tenant;
    attachAuditLocals(req, locals);
  }
}
