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
import { CredentialAdminService } from '../credential-admin.service.js';
import { CLIENT_ID_PATTERN } from './client-id.pipe.js';

/** A request whose credential's tenant was looked up (`credentialTenantOf`). */
const tenantOfRequest = new WeakMap<object, number>();

/**
 * The tenant a route by a client or PAT id acted on, for its audit line: the answer's on success,
 * else the one the credential belongs to (looked up before the handler), else none (an unknown
 * id).
 */
export function credentialTenantOf(req: HttpRequest, body: unknown): number | null {
  return (
    (body as { tenant_id?: number } | undefined)?.tenant_id ?? tenantOfRequest.get(req) ?? null
  );
}

/**
 * Routes by a client or PAT id name no tenant, and a platform key may act on any: the
 * credential's own tenant is looked up first (CredentialAdminService.tenantOfClient/tenantOfPat),
 * so that a refusal (a disabled client's rotation, a bad body) is audited under the right tenant
 * too. A malformed or unknown id looks up nothing; the route answers it as it would.
 */
@Injectable()
export class CredentialTenantInterceptor implements NestInterceptor {
  constructor(private readonly admin: CredentialAdminService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<HttpRequest>();
    return from(this.lookUp(req)).pipe(switchMap(() => next.handle()));
  }

  private async lookUp(req: HttpRequest): Promise<void> {
    const { clientId, patId } = req.params;
    let tenant: number | undefined;
    try {
      if (clientId !== undefined && CLIENT_ID_PATTERN.test(clientId)) {
        tenant = await this.admin.tenantOfClient(clientId);
      } else if (patId !== undefined && /^\d{1,10}$/.test(patId) && Number(patId) <= MAX_ID) {
        tenant = await this.admin.tenantOfPat(Number(patId));
      }
    } catch (err) {
      // unknown: the handler answers 404, and the line carries no tenant
      if (!(err instanceof NotFoundError)) throw err;
    }
    if (tenant !== undefined) tenantOfRequest.set(req, tenant);
  }
}
