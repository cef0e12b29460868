import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { AuditInterceptor } from './audit.interceptor.js';
import { AUDITED, type AuditSpec, type Request } from './audit-metadata.js';

export {
  attachAuditLocals,
  auditLocalsOf,
  type AuditLocals,
  type AuditSpec,
} from './audit-metadata.js';

/**
 * Records the route's outcome in the audit trail (see AuditInterceptor). The interceptor is bound
 * to the audited routes only, not globally: a route without interceptors skips Nest's RxJS
 * pipeline altogether, which is a measurable share of a read's cost.
 */
export const Audited = (
  action: string | AuditSpec,
  target?: AuditSpec['target'],
): MethodDecorator =>
  applyDecorators(
    SetMetadata(
      AUDITED,
      (typeof action === 'string' ? { action, target } : action) satisfies AuditSpec,
    ),
    UseInterceptors(AuditInterceptor),
  );

/** `document:<id>` from the `documentId` path parameter. */
export const documentTarget = (req: Request): string =>
  `document:${String(req.params['documentId'])}`;
