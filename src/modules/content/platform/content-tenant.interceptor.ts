import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { from, type Observable, switchMap } from 'rxjs';
import { NotFoundError } from '../../../common/http/app-error.js';
import { MAX_ID } from '../../../common/http/params.js';
import type { HttpRequest } from '../../../common/http/platform/http-platform.js';
import { ContentService } from '../content.service.js';

/** A request whose project's or document's tenant was looked up (`contentTenantOf`). */
const tenantOfRequest = new WeakMap<object, number>();

const isId = (value: string | undefined): value is string =>
  value !== undefined && /^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_ID;

/**
 * The tenant a route by a project or document id acted on, for its audit line: the answer's on
 * success, else the one the project or document belongs to (looked up before the handler), else
 * none (an unknown id).
 */
export function contentTenantOf(req: HttpRequest, body: unknown): number | null {
  return (
    (body as { tenant_id?: number } | undefined)?.tenant_id ?? tenantOfRequest.get(req) ?? null
  );
}

/**
 * Routes by a project or document id name no tenant, and a platform key may act on any: the
 * row's own tenant is looked up first, so that a refusal (a stale If-Match, a bad body, a missing
 * file) is audited under the right tenant too. A malformed or unknown id looks up nothing; the
 * route answers it as it would.
 */
@Injectable()
export class ContentTenantInterceptor implements NestInterceptor {
  constructor(private readonly content: ContentService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<HttpRequest>();
    return from(this.lookUp(req)).pipe(switchMap(() => next.handle()));
  }

  private async lookUp(req: HttpRequest): Promise<void> {
    const { projectId, documentId } = req.params;
    let tenant: number | undefined;
    try {
      if (isId(projectId)) tenant = await this.content.tenantOfProject(Number(projectId));
      else if (isId(documentId)) tenant = await this.content.tenantOfDocument(Number(documentId));
    } catch (err) {
      // unknown: the handler answers 404, and the line carries no tenant
      if (!(err instanceof NotFoundError)) throw err;
    }
    if (tenant !== undefined) tenantOfRequest.set(req, tenant);
  }
}
