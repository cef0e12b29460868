import type { AttemptResult } from './webhook-sender.js';
import { SSRF_BLOCKED_CODE } from './ssrf.js';

/**
 * `error` of an attempt whose host name does not resolve or resolves to an address the SSRF policy
 * refuses. One message for both: `last_error` is read by the webhook's owner, and telling the two
 * apart would let a tenant map internal DNS names (issue 18 item 8). Which one it was goes to the
 * server log only (`AttemptResult.logDetail`).
 */
export const DESTINATION_UNAVAILABLE_MESSAGE =
  'destination not reachable: the host name does not resolve to an allowed address';

/** The result of a response with `status`: only a 2xx succeeds, a 410 is `gone`. */
export function classify(
  status: number,
  retryAfter: number | null,
  result: (
    outcome: AttemptResult['outcome'],
    statusCode: number | null,
    error: string | null,
    retryAfter?: number | null,
  ) => AttemptResult,
): AttemptResult {
  if (status >= 200 && status < 300) return result('succeeded', status, null);
  if (status === 410) return result('gone', status, 'HTTP 410 Gone');
  if (status >= 300 && status < 400) {
    return result('failed', status, `HTTP ${status}: redirects are not followed`);
  }
  return result('failed', status, `HTTP ${status}`, retryAfter);
}

function errorCode(error: unknown): string | undefined {
  // undici and net sometimes wrap the interesting error (e.g. AggregateError from happy eyeballs).
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause, errors } = current as {
      code?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string') return code;
    current = cause ?? (Array.isArray(errors) ? (errors as unknown[])[0] : undefined);
  }
  return undefined;
}

/**
 * A short, stable reason; raw error messages are avoided because they carry resolved addresses.
 * `logDetail` is what the reason leaves out on purpose.
 */
export function describeError(
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
): { message: string; logDetail?: string } {
  if (timedOut) return { message: `timed out after ${timeoutMs} ms` };
  const code = errorCode(error);
  switch (code) {
    case SSRF_BLOCKED_CODE:
      return {
        message: DESTINATION_UNAVAILABLE_MESSAGE,
        logDetail: 'the host name resolves to an address the SSRF policy refuses',
      };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
      return { message: DESTINATION_UNAVAILABLE_MESSAGE, logDetail: `DNS lookup failed (${code})` };
    default:
      return { message: describeOtherError(code, timeoutMs) };
  }
}

function describeOtherError(code: string | undefined, timeoutMs: number): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return `timed out after ${timeoutMs} ms`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return 'connection closed by the receiver';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `host unreachable (${code})`;
    case undefined:
      return 'request failed';
    default:
      if (/CERT|TLS|SSL/.test(code)) return `TLS error (${code})`;
      return `request failed (${code})`;
  }
}
