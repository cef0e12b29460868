import { checkAgainstDocument } from './openapi-check.js';
import { rememberSecretsIn } from './secrets.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body (problem details included), or the raw text when it is not JSON. */
  body: any;
  text: string;
}

export interface RequestOptions {
  auth?: string;
  body?: unknown;
  /** Sent as is (e.g. malformed JSON, form bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * A small fetch wrapper for e2e tests: `path` is relative to /api/v1 unless it starts with
 * `/health`, `/metrics` or `http`.
 */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const url = /^(https?:|\/health|\/metrics)/.test(path)
    ? path.startsWith('http')
      ? path
      : `${baseUrl}${path}`
    : `${baseUrl}/api/v1${path}`;
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.authorization = options.auth;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  rememberSecretsIn(options.body);
  if (options.rawBody) rememberSecretsIn(options.rawBody);
  if (options.auth) rememberSecretsIn(options.auth);
  rememberSecretsIn(options.headers);
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON; keep the text
  }
  rememberSecretsIn(parsed);
  checkAgainstDocument({
    method,
    url,
    requestBody: options.body ?? jsonOrUndefined(options.rawBody),
    requestText: body,
    requestHeaders: headers,
    status: res.status,
    headers: res.headers,
    body: parsed,
    text,
  });
  return { status: res.status, headers: res.headers, body: parsed, text };
}

function jsonOrUndefined(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
