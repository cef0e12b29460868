import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Observable, tap } from 'rxjs';
import { AppError } from '../../common/http/app-error.js';
import { OAuthError } from '../../common/http/oauth-error.js';
import type { Principal } from '../../common/access/principal.js';
import { AuditService } from './audit.service.js';
import { AUDITED, type AuditSpec, auditLocalsOf, type Request } from './audit-metadata.js';

/**
 * Writes one audit line per call of an `@Audited` route, success or failure, with who (tenant,
 * credential), from where (IP, request id), what and on what. Routes declare it; services stay
 * free of request plumbing.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuditSpec | undefined>(AUDITED, context.getHandler());
    if (!spec) return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: Principal }>();
    const write = (outcome: 'success' | 'failure', body: unknown, detail: string | null) => {
      const locals = auditLocalsOf(req);
      const read = <T>(pick: ((req: Request, body: unknown) => T | null) | undefined) => {
        try {
          return pick ? pick(req, body) : null;
        } catch {
          return null;
        }
      };
      const target = read(spec.target);
      const tenant = read(spec.tenant);
      void this.audit.record({
        tenantId:
          locals.tenantId ??
          (Number.isSafeInteger(tenant) ? tenant : null) ??
          req.user?.tenantId ??
          null,
        credentialRef: locals.credentialRef ?? req.user?.credential.ref ?? null,
        actor: locals.actor ?? null,
        action: spec.action,
        target,
        outcome,
        detail,
        ip: req.ip ?? null,
        requestId: req.id,
      });
    };
    return next.handle().pipe(
      tap({
        next: (body) => write('success', body, null),
        error: (err: unknown) =>
          write(
            'failure',
            undefined,
            err instanceof AppError
              ? err.code
              : err instanceof OAuthError
                ? err.error
                : 'internal_error',
          ),
      }),
    );
  }
}
