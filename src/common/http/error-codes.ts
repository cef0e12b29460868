/**
 * Every problem code the API answers (RFC 9457 bodies; the token endpoint's RFC 6749 errors are
 * apart), with its status and title: the one registry. Error classes, the problem filter, the
 * refusals of the HTTP parser and the OpenAPI catalogue read it; a test keeps the table of docs/integrators/errors.md equal.
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, title: 'Validation failed' },
  malformed_request: { status: 400, title: 'Malformed request' },
  project_not_found: { status: 400, title: 'Project not found' },
  version_conflict: { status: 400, title: 'Version conflict' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Invalid token' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  entitlement_required: { status: 403, title: 'Entitlement required' },
  ip_not_allowed: { status: 403, title: 'IP address not allowed' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  lock_token_invalid: { status: 409, title: 'Lock token invalid' },
  idempotency_key_reused: { status: 409, title: 'Conflict' },
  webhook_revoked: { status: 409, title: 'Webhook revoked' },
  delivery_not_replayable: { status: 409, title: 'Delivery not replayable' },
  webhook_limit_reached: { status: 409, title: 'Webhook limit reached' },
  /** Accept or reject (CLI, platform API) of a revision that is no longer staged. */
  revision_not_staged: { status: 409, title: 'Revision not staged' },
  /** Administration (CLI, platform API): a new secret asked for a disabled client. */
  client_disabled: { status: 409, title: 'Client disabled' },
  /** The platform API's new version with an `If-Match` that is not the current content hash. */
  precondition_failed: { status: 412, title: 'Precondition failed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  expectation_failed: { status: 417, title: 'Expectation failed' },
  document_locked: { status: 423, title: 'Document locked' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]['status'];
