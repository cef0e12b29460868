import type { HeaderObject, OpenAPIObject, ReferenceObject } from '@nestjs/swagger';
import { SAFE_REQUEST_ID } from './common/http/request-id.js';
import { TOKEN_ROUTE } from './common/http/token-route.js';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Headers = Record<string, HeaderObject | ReferenceObject>;

/** A response header a handler always sets on success (Nest's `@Header`, e.g. `@NoStore()`). */
export interface FixedHeader {
  name: string;
  value: string;
}

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

/** The request-rate budgets (`@nestjs/throttler`, one per throttler name), per minute. */
const RATE_LIMITS = {
  api: 'API calls of this credential',
  token: 'token requests of this client id from this address',
} as const;

function rateLimitHeaders(name: keyof typeof RATE_LIMITS): Record<string, HeaderObject> {
  const what = RATE_LIMITS[name];
  return {
    [`X-RateLimit-Limit-${name}`]: {
      description: `How many ${what} the current minute allows.`,
      schema: { type: 'integer', minimum: 0 },
    },
    [`X-RateLimit-Remaining-${name}`]: {
      description: `How many ${what} are left in the current minute.`,
      schema: { type: 'integer', minimum: 0 },
    },
    [`X-RateLimit-Reset-${name}`]: {
      description: 'Seconds until the current minute ends and the budget is full again.',
      schema: { type: 'integer', minimum: 0 },
    },
  };
}

const COMPONENTS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description:
      "The request's id: the caller's `X-Request-Id` when it sent a sane one (1 to 128 of " +
      '`A-Z a-z 0-9 . _ : -`), else a new UUID. Every log line and audit entry of the request ' +
      'carries it; quote it when asking for support.',
    required: true,
    schema: { type: 'string', pattern: SAFE_REQUEST_ID.source },
  },
  ...rateLimitHeaders('api'),
  ...rateLimitHeaders('token'),
  'Cache-Control': {
    description: 'The answer carries a secret or a credential: no cache or proxy may keep it.',
    schema: { type: 'string', enum: ['no-store'] },
  },
  Pragma: {
    description: '`Cache-Control: no-store` for HTTP/1.0 caches.',
    schema: { type: 'string', enum: ['no-cache'] },
  },
};

/**
 * Refers a response to the `components.headers` it does not declare already (case-insensitive),
 * noting each one referred to in `used`.
 */
function add(response: { headers?: Headers }, names: readonly string[], used: Set<string>): void {
  const headers = (response.headers ??= {});
  const present = new Set(Object.keys(headers).map((n) => n.toLowerCase()));
  for (const name of names) {
    if (present.has(name.toLowerCase())) continue;
    headers[name] = ref(name);
    used.add(name);
  }
}

/**
 * Documents the headers the service's edge puts on answers, from the rules that put them there:
 * - `X-Request-Id` on every answer of every operation (the HTTP platform sets it first thing);
 * - the headers a handler fixes with `@Header` (`Cache-Control: no-store` and `Pragma` on answers
 *   carrying a secret), as constants: on its successes always, on its errors when the refusal
 *   came after its guards (Nest sets them between the guards and the pipes);
 * - the rate-limit budget of the `api` throttler on every answer of an operation that takes a
 *   bearer credential, and of the `token` throttler, with `no-store`, on every answer of the token
 *   endpoint (RFC 6749 §5.1 asks it of errors too).
 * The e2e suites check every answer's headers against these: an undocumented one fails.
 */
export function documentResponseHeaders(
  document: OpenAPIObject,
  fixedHeaders: (operationId: string) => readonly FixedHeader[],
  rateLimited: boolean,
): void {
  const used = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation: Operation | undefined = item[method];
      if (!operation) continue;
      const fixed = operation.operationId ? fixedHeaders(operation.operationId) : [];
      const token = path === TOKEN_ROUTE;
      const bearer = (operation.security ?? []).length > 0;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || '$ref' in response) continue;
        add(response, ['X-Request-Id'], used);
        const headers = (response.headers ??= {});
        for (const { name, value } of fixed) {
          headers[name] ??= {
            description: COMPONENTS[name]?.description ?? `\`${value}\`.`,
            required: status.startsWith('2'),
            schema: { type: 'string', enum: [value] },
          };
        }
        if (token) {
          const names = ['Cache-Control', 'Pragma'];
          if (rateLimited) names.push(...Object.keys(rateLimitHeaders('token')));
          add(response, names, used);
        } else if (bearer && rateLimited) {
          const names = Object.keys(rateLimitHeaders('api'));
          add(response, names, used);
        }
      }
    }
  }
  const components = (document.components ??= {});
  components.headers ??= {};
  for (const name of used) components.headers[name] = COMPONENTS[name]!;
}
