import { SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

export const AUDITED = 'audit:action';

export interface AuditSpec {
  action: string;
  /** What the action touched, from the request and (on success) the response body. */
  target?: (req: Request, body: unknown) => string | null;
}

/** Records the route's outcome in the audit trail (see AuditInterceptor). */
export const Audited = (action: string, target?: AuditSpec['target']): MethodDecorator =>
  SetMetadata(AUDITED, { action, target } satisfies AuditSpec);

/** Overrides a handler can leave on `res.locals.audit` (e.g. the token endpoint's tenant). */
export interface AuditLocals {
  tenantId?: number | null;
  credentialRef?: string | null;
}

/** `document:<id>` from the `documentId` path parameter. */
export const documentTarget = (req: Request): string =>
  `document:${String(req.params['documentId'])}`;
