import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import { retryAfterMs } from './retry-schedule.js';
import { DESTINATION_UNAVAILABLE_MESSAGE, classify, describeError } from './attempt-errors.js';
import { readHead, excerptText } from './response-excerpt.js';
import { checkHostLiteral, createGuardedConnector, type Resolver } from './ssrf.js';

export { DESTINATION_UNAVAILABLE_MESSAGE };

export const WEBHOOK_USER_AGENT = 'grc-integration-api-webhooks/1.0';

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
  /**
   * Keep-alive connections per origin at most (undici's pool per origin); attempts beyond them
   * wait for one, within their deadline. Unbounded when absent.
   */
  connectionsPerOrigin?: number;
}

class AttemptTimeoutError extends Error {
  constructor() {
    super('webhook attempt timed out');
    this.name = 'AttemptTimeoutError';
  }
}

/**
 * Sends single webhook attempts over keep-alive connections: one bounded pool per origin, each
 * connection opened to the address the SSRF check passed and reused only for its origin.
 */
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
      ...(options.connectionsPerOrigin === undefined
        ? {}
        : { connections: options.connectionsPerOrigin }),
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
