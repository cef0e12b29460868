import type { HttpRequest } from '../../common/http/platform/http-platform.js';

/** The request an audit target is read from: path parameters are strings. */
export type Request = HttpRequest;

/** Metadata key of `@Audited` (audited.decorator.ts), read by AuditInterceptor. */
export const AUDITED = 'audit:action';

export interface AuditSpec {
  action: string;
  /** What the action touched, from the request and (on success) the response body. */
  target?: (req: Request, body: unknown) => string | null;
  /**
   * The tenant the line belongs to, where the caller is not a tenant's credential (the platform
   * API): from the request and (on success) the response body.
   */
  tenant?: (req: Request, body: unknown) => number | null;
}

/** Overrides a handler can leave for its request's audit line (e.g. the token endpoint's tenant). */
export interface AuditLocals {
  tenantId?: number | null;
  credentialRef?: string | null;
  /** The person a platform key acts for (`X-Acting-User`), set by the platform API's guard. */
  actor?: string | null;
}

const localsOfRequest = new WeakMap<object, AuditLocals>();

/** Leaves `locals` for the audit line of `req`; the handler may fill them in later. */
export function attachAuditLocals(req: Request, locals: AuditLocals): void {
  localsOfRequest.set(req, locals);
}

export function auditLocalsOf(req: Request): AuditLocals {
  return localsOfRequest.get(req) ?? {};
}
