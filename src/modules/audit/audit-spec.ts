import type { Request } from 'express';

/** Metadata key of `@Audited` (audited.decorator.ts), read by AuditInterceptor. */
export const AUDITED = 'audit:action';

export interface AuditSpec {
  action: string;
  /** What the action touched, from the request and (on success) the response body. */
  target?: (req: Request, body: unknown) => string | null;
}

/** Overrides a handler can leave on `res.locals.audit` (e.g. the token endpoint's tenant). */
export interface AuditLocals {
  tenantId?: number | null;
  credentialRef?: string | null;
}
