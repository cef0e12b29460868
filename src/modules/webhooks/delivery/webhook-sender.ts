import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import { retryAfterMs } from './retry-schedule.js';
import {
  SSRF_BLOCKED_CODE,
  checkHostLiteral,
  createGuardedConnector,
  type Resolver,
} from './ssrf.js';

export const WEBHOOK_USER_AGENT = 'grc-integration-api-webhooks/1.0';

/**
 * `error` of an attempt whose host name does not resolve or resolves to an address the SSRF policy
 * refuses. One message for both: `last_error` is read by the webhook's owner, and telling the two
 * apart would let a tenant map internal DNS names (issue 18 item 8). Which one it was goes to the
 * server log only (`AttemptResult.logDetail`).
 */
export const DESTINATION_UNAVAILABLE_MESSAGE =
  'destination not reachable: the host name does not resolve to an allowed address';

// Reading a large reply just to keep its connection is not worth it; past this, reconnecting is
// cheaper.
const MAX_DRAIN_BYTES = 128 * 1024;

/** What an attempt keeps of the receiver's response body (`response_body_excerpt`). */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface WebhookAttempt {
  url: string;
  /** `whsec_` + base64 key, as returned when the webhook was created. */
  secret: string;
  /**
   * The secret a rotation replaced, while its grace period lasts: the attempt is signed with both
   * (`v1,<new> v1,<old>`, Standard Webhooks' several signatures), so a receiver still holding the
   * old one verifies it too.
   */
  previousSecret?: string | null;
  /** Sent as `webhook-id`; the same on every retry and replay so receivers can dedupe. */
  eventId: string;
  /** The exact JSON bytes to send; they are signed as given. */
  body: string;
  /** Time of this attempt, for `webhook-timestamp`; defaults to now. */
  timestamp?: Date;
}

export interface AttemptResult {
  outcome: 'succeeded' | 'failed' | 'gone';
  statusCode: number | null;
  /** Short human-readable reason; never contains the secret or the response body. */
  error: string | null;
  /** What `error` does not tell the webhook's owner, for the server log only. */
  logDetail?: string;
  durationMs: number;
  /** `Retry-After` of a 429 or 503, in ms, not yet bounded (see `boundRetryAfterMs`). */
  retryAfterMs: number | null;
  /**
   * The first `RESPONSE_EXCERPT_BYTES` of the response body as text (see `excerptText`); `''` for
   * an empty body, null (or absent) when no response arrived.
   */
  responseBodyExcerpt?: string | null;
}

export interface WebhookSenderOptions {
  /** Budget for the whole attempt: connect, request, response headers and draining the body. */
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  allowHttp: boolean;
  /** Injected for tests; defaults to `dns.lookup`. */
  resolve?: Resolver;
}

class AttemptTimeoutError extends Error {
  constructor() {
    super('webhook attempt timed out');
    this.name = 'AttemptTimeoutError';
  }
}

/** Sends single webhook attempts over one shared, keep-alive connection pool. */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly allowPrivateNetworks: boolean;
  private readonly allowHttp: boolean;

  constructor(options: WebhookSenderOptions) {
    if (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive integer, got ${options.timeoutMs}`);
    }
    this.timeoutMs = options.timeoutMs;
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    this.allowHttp = options.allowHttp;
    this.agent = new Agent({
      connect: createGuardedConnector({
        timeout: options.timeoutMs,
        allowPrivateNetworks: options.allowPrivateNetworks,
        resolve: options.resolve,
      }),
      // Backstops only: these are idle timeouts, the per-attempt deadline below is the real limit.
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(attempt: WebhookAttempt): Promise<AttemptResult> {
    const started = performance.now();
    let excerpt: string | null = null;
    const result = (
      outcome: AttemptResult['outcome'],
      statusCode: number | null,
      error: string | null,
      retryAfter: number | null = null,
      logDetail?: string,
    ): AttemptResult => ({
      outcome,
      statusCode,
      error,
      ...(logDetail === undefined ? {} : { logDetail }),
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: retryAfter,
      responseBodyExcerpt: excerpt,
    });

    let url: URL;
    try {
      url = new URL(attempt.url);
    } catch {
      return result('failed', null, 'invalid endpoint URL');
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowHttp)) {
      return result('failed', null, `endpoint URL scheme must be https (got ${url.protocol})`);
    }
    if (url.username !== '' || url.password !== '') {
      return result('failed', null, 'endpoint URL must not contain credentials');
    }
    if (!this.allowPrivateNetworks) {
      // The connector refuses this as well; checking here gives the answer without touching the
      // pool at all.
      const refusal = checkHostLiteral(url.hostname);
      if (refusal) {
        return result('failed', null, DESTINATION_UNAVAILABLE_MESSAGE, null, refusal.message);
      }
    }

    const timestamp = attempt.timestamp ?? new Date();
    let signature: string;
    try {
      // sign() floors the timestamp to seconds, exactly as the header below does.
      signature = signatures(attempt, timestamp);
    } catch {
      // The library's message is about the base64 decoding; the secret itself must never leak.
      return result('failed', null, 'invalid signing secret');
    }

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeoutError()), this.timeoutMs);
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          'webhook-id': attempt.eventId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: attempt.body,
        signal: controller.signal,
      });
      const status = response.statusCode;
      const retryAfter =
        status === 429 || status === 503
          ? retryAfterMs(firstHeader(response.headers['retry-after']), new Date())
          : null;
      // Its start is kept for the delivery's history; the rest must still be consumed for the
      // connection to return to the pool. dump() gives up (and drops the connection) past
      // MAX_DRAIN_BYTES or at the deadline. The status line has already decided the outcome: a
      // receiver that answered 2xx has accepted the event, and failing it over a slow body would
      // only cause a duplicate.
      excerpt = excerptText(
        await readHead(response.body, RESPONSE_EXCERPT_BYTES, controller.signal),
      );
      try {
        await response.body.dump({ limit: MAX_DRAIN_BYTES, signal: controller.signal });
      } catch {
        // Connection discarded; nothing else to do.
      }
      return classify(status, retryAfter, result);
    } catch (error) {
      const { message, logDetail } = describeError(
        error,
        controller.signal.aborted,
        this.timeoutMs,
      );
      return result('failed', null, message, null, logDetail);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for in-flight attempts, then closes every pooled connection. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * Up to `max` bytes from the start of `body`, without reading further (the stream is left paused
 * for `dump`). Whatever arrived is answered when the body ends, fails or the deadline passes.
 */
export function readHead(
  body: NodeJS.ReadableStream,
  max: number,
  signal: AbortSignal,
): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      body.off('data', onData);
      body.off('end', done);
      body.off('error', done);
      body.off('close', done);
      signal.removeEventListener('abort', done);
      body.pause();
      resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const taken = bytes.subarray(0, max - size);
      chunks.push(taken);
      size += taken.length;
      if (size >= max) done();
    };
    // stays: an error between this read and dump() must not go unheard (it would end the process)
    body.on('error', () => undefined);
    if (signal.aborted || max <= 0) {
      resolve(Buffer.alloc(0));
      return;
    }
    signal.addEventListener('abort', done);
    body.on('end', done);
    body.on('error', done);
    body.on('close', done);
    body.on('data', onData);
  });
}

/**
 * The bytes of a response excerpt as text that PostgreSQL stores and JSON carries: UTF-8, with a
 * character cut by the byte limit dropped (never half of one), invalid sequences as U+FFFD, and
 * U+0000 (which a `text` column refuses, and which would fail the whole batch's result write) as
 * U+FFFD too.
 */
export function excerptText(bytes: Buffer): string {
  // write() without end() holds back an incomplete last character instead of replacing it
  return new StringDecoder('utf8').write(bytes).replaceAll('\u0000', '\uFFFD');
}

/** `webhook-signature`: the current secret's signature, then the previous one's during its grace. */
function signatures(attempt: WebhookAttempt, timestamp: Date): string {
  const secrets = attempt.previousSecret
    ? [attempt.secret, attempt.previousSecret]
    : [attempt.secret];
  return secrets
    .map((secret) => new Webhook(secret).sign(attempt.eventId, timestamp, attempt.body))
    .join(' ');
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function classify(
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
function describeError(
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
