/** A problem code's entry: what the body says and when the API answers it. */
export interface ErrorCodeEntry {
  status: number;
  title: string;
  /**
   * When the API answers this code, in one clause of Markdown: the OpenAPI responses say
   * "`code`: description." and the errors guide's table starts its row with it.
   */
  description: string;
  /** What the errors guide's table adds after the description (it begins with its own joiner). */
  details?: string;
}

/**
 * Every problem code the API answers (RFC 9457 bodies; the token endpoint's RFC 6749 errors are
 * apart), with its status, title and description: the one registry. Error classes, the problem
 * filter, the refusals of the HTTP parser, the OpenAPI responses and the table of
 * docs/integrators/errors.md are written from it (`npm run openapi` rewrites the table, a unit
 * test fails when it drifts).
 */
export const ERROR_CODES = {
  validation_failed: {
    status: 400,
    title: 'Validation failed',
    description:
      'the path, query, headers or body are invalid, or the query has a parameter this ' +
      'operation does not take',
    details:
      ' (a body with members on a route that takes none, such as a replay or a test event; ' +
      'unknown body fields too, `constructor` or `__proto__` as much as any other, and query ' +
      'parameters a route does not take, on every API route — `/health/*` and `/metrics` take ' +
      'any query; malformed JSON, a JSON body that is not an object or array, bytes that are not ' +
      'UTF-8; U+0000 or a lone surrogate in any string or key of a body, query or path); ' +
      '`errors[].field` names the member (`name`, `events[0]`, `content.sections[0].body`)',
  },
  malformed_request: {
    status: 400,
    title: 'Malformed request',
    description:
      'the request line or path could not be parsed, or the head sends `Host`, ' +
      '`Authorization`, `Content-Type` or `Content-Length` twice or a transfer coding other ' +
      'than `chunked` alone (the connection is closed)',
    details:
      '; so are a request line or method the HTTP parser refuses, a path that is not valid ' +
      'percent-encoding and an HTTP/1.1 request without `Host`',
  },
  project_not_found: {
    status: 400,
    title: 'Project not found',
    description:
      '`GET /projects/{projectId}` (and its `/documents`, `/files`): unknown project or ' +
      "another tenant's",
  },
  version_conflict: {
    status: 400,
    title: 'Version conflict',
    description:
      'staging against a stale base: `base_version_id` not current, or `If-Match` not the ' +
      'current hash',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    description:
      'no bearer token: no `Authorization` header, or one of another scheme such as `Basic`',
    details: ' (`WWW-Authenticate: Bearer realm="api"`)',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid token',
    description: 'the bearer token is unknown, malformed, expired or revoked',
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    description: "the token lacks the operation's scope",
  },
  entitlement_required: {
    status: 403,
    title: 'Entitlement required',
    description: "the tenant's plan lacks the entitlement",
  },
  ip_not_allowed: {
    status: 403,
    title: 'IP address not allowed',
    description: "the caller's address is outside the credential's IP allowlist",
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description: 'unknown, or belongs to another tenant (answered alike: never 403, never a hint)',
    details: '; unknown routes',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'a method no route of a known path takes; `Allow` lists the methods that are',
    details:
      ' (`PUT /projects`, `GET /documents/{documentId}/checkout`, `OPTIONS` anywhere: there is ' +
      'no CORS preflight), HEAD wherever GET is. Under `/api/v1` it comes after ' +
      "authentication, as an unknown route's 404 does",
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    description:
      'the headers or body of the request did not arrive in time (the connection is closed)',
  },
  lock_token_invalid: {
    status: 409,
    title: 'Lock token invalid',
    description:
      'the lock token is not the live lock of the document (wrong, malformed, expired or ' +
      'already used)',
  },
  idempotency_key_reused: {
    status: 409,
    title: 'Conflict',
    description: 'the `Idempotency-Key` was used with another request on this route',
  },
  webhook_revoked: {
    status: 409,
    title: 'Webhook revoked',
    description: 'the webhook is revoked, for good',
    details: ': `active`/`paused` asked of it, or a replay of one of its deliveries',
  },
  delivery_not_replayable: {
    status: 409,
    title: 'Delivery not replayable',
    description: 'replay of a delivery that is not `failed` or `retry`',
  },
  webhook_limit_reached: {
    status: 409,
    title: 'Webhook limit reached',
    description:
      'the tenant already has `WEBHOOK_MAX_PER_TENANT` (default 50) webhooks that are not revoked',
  },
  revision_not_staged: {
    status: 409,
    title: 'Revision not staged',
    description: 'accept or reject of a revision that is already accepted, rejected or superseded',
    details:
      ' (CLI `revision accept`/`reject`, platform API ' +
      '`POST /platform/v1/revisions/{revisionId}/accept`/`reject`)',
  },
  client_disabled: {
    status: 409,
    title: 'Client disabled',
    description: 'a new secret asked for a disabled client (administration only)',
  },
  precondition_failed: {
    status: 412,
    title: 'Precondition failed',
    description:
      "platform API: a new version whose `If-Match` is not the current version's content hash",
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'the body exceeds the `BODY_LIMIT` of the server (5 MiB)',
    details: ', or a compressed body expands past it or to more than 50 times its size',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description:
      'the body is not `application/json` in UTF-8, or has a `Content-Encoding` other than ' +
      'gzip, deflate or br',
    details: ' (forms included: only `/oauth/token` takes them)',
  },
  expectation_failed: {
    status: 417,
    title: 'Expectation failed',
    description: 'an `Expect` other than `100-continue`',
    details:
      ': answered before the route or the credential is looked at; a connection that sent a ' +
      'body is closed',
  },
  document_locked: {
    status: 423,
    title: 'Document locked',
    description: 'a live lock exists; the body adds its `expires_at`, never its token',
    details: ' (checkout of a locked document; staging on it without its `Lock-Token`)',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    description:
      'too many requests, or too many unknown bearer credentials from this address; wait the ' +
      '`Retry-After` seconds',
  },
  headers_too_large: {
    status: 431,
    title: 'Request header fields too large',
    description: "request headers over Node's limit (the connection is closed)",
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'unexpected; the body carries no stack, SQL, secrets or other internals',
    details: '; quote its `request_id`',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'the database is unreachable; retry after `Retry-After`',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]['status'];

/** "`code`: description." for each code, the text an OpenAPI response gives of its codes. */
export function describeCodes(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}.`).join(' ');
}

/** The errors guide's table of problem codes, row for row the registry. */
export function errorCodesTable(): string {
  const entries: Array<[string, ErrorCodeEntry]> = Object.entries(ERROR_CODES);
  const rows = entries.map(
    ([code, e]) => `| ${e.status} | \`${code}\` | ${e.description}${e.details ?? ''} |`,
  );
  return ['| status | code | when |', '|---|---|---|', ...rows].join('\n');
}
