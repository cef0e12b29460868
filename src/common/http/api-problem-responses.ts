import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { describeCodes, ERROR_CODES, type ErrorCode } from './error-codes.js';
import { ProblemDetails, ProblemFieldError } from './problem-details.schema.js';

export { ProblemDetails, ProblemFieldError };

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 423 | 429 | 500 | 503;

/** An example body's own part; its status and title are the registry's (error-codes.ts). */
interface ProblemExample {
  detail: string;
  extra?: Record<string, unknown>;
}

/** One realistic body per code, as the service answers it; the examples of the document. */
const CATALOG = {
  validation_failed: {
    detail: 'limit: limit must not be greater than 100',
    extra: { errors: [{ field: 'limit', message: 'limit must not be greater than 100' }] },
  },
  project_not_found: { detail: 'project not found' },
  version_conflict: {
    detail: 'base version 41 is no longer current (current: 42)',
    extra: { base_version_id: 41, current_version_id: 42 },
  },
  unauthenticated: { detail: 'a bearer token is required' },
  invalid_token: { detail: 'the bearer token is unknown, expired or revoked' },
  insufficient_scope: {
    detail: 'the token lacks the scope documents:read',
    extra: { scope: 'documents:read' },
  },
  entitlement_required: {
    detail: "the tenant's plan does not include api.webhooks",
    extra: { entitlement: 'api.webhooks' },
  },
  ip_not_allowed: { detail: "the caller's address is not in the credential's allowlist" },
  not_found: { detail: 'document not found' },
  lock_token_invalid: {
    detail: 'the lock token is not the live lock of this document (wrong, expired or already used)',
  },
  webhook_revoked: { detail: 'the webhook is revoked; revocation is final' },
  webhook_limit_reached: {
    detail: 'the tenant already has 50 webhooks that are not revoked (the limit); revoke one first',
  },
  delivery_not_replayable: {
    detail: 'only a failed or retry delivery can be replayed (this one is succeeded)',
  },
  idempotency_key_reused: {
    detail: 'this Idempotency-Key was already used with a different request on this route',
  },
  precondition_failed: {
    detail: 'If-Match does not match the content hash of the current version 42',
    extra: { current_version_id: 42 },
  },
  payload_too_large: { detail: 'the request body is too large' },
  unsupported_media_type: { detail: 'the body must be application/json (UTF-8)' },
  document_locked: {
    detail: 'the document is checked out until 2026-11-22T10:30:00.000Z',
    extra: { expires_at: '2026-11-22T10:30:00.000Z' },
  },
  rate_limited: { detail: 'rate limit exceeded; retry in 12 s' },
  malformed_request: { detail: 'the request URL could not be parsed' },
  method_not_allowed: { detail: 'DELETE is not allowed on this path (allowed: GET, HEAD, POST)' },
  expectation_failed: { detail: 'the only expectation this service meets is 100-continue' },
  request_timeout: { detail: 'the request took too long' },
  headers_too_large: { detail: 'the request headers are too large' },
  revision_not_staged: { detail: 'revision 1 is accepted, not staged' },
  client_disabled: {
    detail: 'client gci_OqYK… is disabled; a disabled client gets no new secret',
  },
  internal_error: { detail: 'an unexpected error occurred' },
  service_unavailable: { detail: 'the database is unavailable, retry shortly' },
} as const satisfies Record<ErrorCode, ProblemExample>;

export type ProblemCode = ErrorCode;

/** The codes an operation answers with each status when it does not name them. */
const DEFAULT_CODES: Record<ProblemStatus, readonly ProblemCode[]> = {
  400: ['validation_failed', 'malformed_request'],
  401: ['unauthenticated', 'invalid_token'],
  403: ['insufficient_scope', 'entitlement_required', 'ip_not_allowed'],
  404: ['not_found'],
  409: [],
  412: ['precondition_failed'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  423: ['document_locked'],
  429: ['rate_limited'],
  500: ['internal_error'],
  503: ['service_unavailable'],
};

/** The registry's descriptions of the codes, or a 409's own words when it names none. */
function defaultDescription(codes: readonly ProblemCode[]): string {
  return codes.length ? describeCodes(codes) : 'Conflict with the current state.';
}

const HEADERS: Partial<Record<ProblemStatus, Record<string, { description: string }>>> = {
  401: { 'WWW-Authenticate': { description: 'e.g. `Bearer realm="api", error="invalid_token"`' } },
  403: {
    'WWW-Authenticate': {
      description:
        'With `insufficient_scope`: `Bearer realm="api", error="insufficient_scope", scope="…"`',
    },
  },
  429: { 'Retry-After': { description: 'Seconds to wait before retrying.' } },
  503: { 'Retry-After': { description: 'Seconds to wait before retrying.' } },
};

export interface ProblemResponse {
  status: ProblemStatus;
  /** The codes this operation can answer with this status; the default set when omitted. */
  codes?: readonly ProblemCode[];
  /** This operation's own words; the registry's descriptions of the codes when omitted. */
  description?: string;
}

const EXAMPLE_REQUEST_ID = '6f1c2b9e-3d4a-4f5b-8c7d-9e0f1a2b3c4d';

export function problemExample(code: ProblemCode): Record<string, unknown> {
  const entry: ProblemExample = CATALOG[code];
  return {
    type: `urn:problem:${code}`,
    title: ERROR_CODES[code].title,
    status: ERROR_CODES[code].status,
    detail: entry.detail,
    code,
    request_id: EXAMPLE_REQUEST_ID,
    ...entry.extra,
  };
}

function problemResponse(spec: ProblemResponse): MethodDecorator & ClassDecorator {
  const codes = spec.codes ?? DEFAULT_CODES[spec.status];
  for (const code of codes) {
    if (ERROR_CODES[code].status !== spec.status) {
      throw new Error(`problem code ${code} is not answered with status ${spec.status}`);
    }
  }
  const headers = Object.fromEntries(
    Object.entries(HEADERS[spec.status] ?? {}).map(([name, h]) => [
      name,
      { description: h.description, schema: { type: 'string' as const } },
    ]),
  );
  return ApiResponse({
    status: spec.status,
    description: spec.description ?? defaultDescription(codes),
    ...(Object.keys(headers).length ? { headers } : {}),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: { $ref: getSchemaPath(ProblemDetails) },
        ...(codes.length
          ? {
              examples: Object.fromEntries(
                codes.map((code) => [code, { summary: code, value: problemExample(code) }]),
              ),
            }
          : {}),
      },
    },
  });
}

/** Where @nestjs/swagger keeps an operation's (or a controller's) responses by status. */
const API_RESPONSE_METADATA = 'swagger/apiResponse';

/** The statuses each operation or controller got without naming them: an explicit one replaces them. */
const IMPLICIT = new WeakMap<object, Set<number>>();

/**
 * @nestjs/swagger joins the descriptions of two declarations of one status; the statuses added
 * to every operation must not double what @Authorized and the method both declare, so an implicit
 * one yields to any declaration and an explicit one replaces an implicit one.
 */
function declared(spec: ProblemResponse, implicit: boolean): MethodDecorator & ClassDecorator {
  const decorate = problemResponse(spec);
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value as object | undefined) ?? target;
    const responses = (Reflect.getMetadata(API_RESPONSE_METADATA, holder) ?? {}) as Record<
      string,
      unknown
    >;
    const implicitHere = IMPLICIT.get(holder) ?? new Set<number>();
    IMPLICIT.set(holder, implicitHere);
    if (spec.status in responses) {
      if (implicit) return descriptor;
      if (implicitHere.has(spec.status)) {
        const rest = { ...responses };
        delete rest[spec.status];
        Reflect.defineMetadata(API_RESPONSE_METADATA, rest, holder);
      }
    }
    if (implicit) implicitHere.add(spec.status);
    else implicitHere.delete(spec.status);
    return descriptor ? decorate(target, key!, descriptor) : decorate(target as never);
  }) as MethodDecorator & ClassDecorator;
}

/**
 * Documents error responses as RFC 9457 problem details, all referencing the one
 * `ProblemDetails` schema, with an example per code:
 * `@ApiProblemResponses(400, { status: 409, codes: ['lock_token_invalid'] })`.
 * Every operation also gets 400 (a query parameter it does not take, docs/operators/security.md), 429 and 500,
 * which any request can meet, and an operation that takes a body 415; their descriptions are the
 * registry's unless the operation gives its own.
 */
export function ApiProblemResponses(
  ...responses: Array<ProblemStatus | ProblemResponse>
): MethodDecorator & ClassDecorator {
  const specs = responses.map((r) => (typeof r === 'number' ? { status: r } : r));
  const implicit: ProblemResponse[] = [];
  // an operation that takes a body can meet the media-type check too
  if (specs.some((s) => s.status === 413) && !specs.some((s) => s.status === 415)) {
    implicit.push({ status: 415 });
  }
  for (const status of [400, 429, 500] as const) {
    if (!specs.some((s) => s.status === status)) implicit.push({ status });
  }
  return applyDecorators(
    ApiExtraModels(ProblemDetails, ProblemFieldError),
    ...specs.map((spec) => declared(spec, false)),
    ...implicit.map((spec) => declared(spec, true)),
  );
}
