import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MalformedRequestError } from './app-error.js';
import { closeAfterResponse } from './lingering-close.js';

/**
 * Headers a request may carry once (RFC 9110 §5.3: not lists). Node keeps the first of two and
 * drops the other, while a proxy in front may act on the last: the service would then
 * authenticate, route or decode a request other than the one the proxy checked. (Node's parser
 * already refuses two `Content-Length`s; it is listed so that no parser change lets one through.)
 */
const SINGLETON_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'authorization',
  'content-type',
  'content-length',
]);

/** Connections a misframed request came on: nothing after it on them is handled. */
const condemned = new WeakSet<Socket>();

/**
 * Why a request's head cannot be trusted to frame and attribute it, or undefined when it can:
 * an HTTP/1.1 request without `Host`, a singleton header sent twice, or a transfer coding other than `chunked` alone (RFC 9112 §6.1;
 * Node's parser decodes the chunks and hands the other codings' bytes on as if they were the
 * body, so `gzip, chunked` would be read as a body it is not). A `Content-Encoding` is decoded
 * (body-decoding.ts); this is about the message, checked before anything else reads it.
 */
export function framingProblem(req: IncomingMessage): string | undefined {
  // RFC 9112 §3.2; Node's own check is off, so that this is answered as problem details
  // (before-routing.ts): the same versions as Node's
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
    return 'an HTTP/1.1 request must send a Host header';
  }
  const seen = new Set<string>();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!SINGLETON_HEADERS.has(name)) continue;
    if (seen.has(name)) return `the ${name} header is sent more than once`;
    seen.add(name);
  }
  const codings = req.headers['transfer-encoding'];
  if (codings !== undefined && !onlyChunked(codings)) {
    return 'a transfer coding other than chunked alone is not supported (send the body chunked, or compressed with Content-Encoding)';
  }
  return undefined;
}

/** Whether a `Transfer-Encoding` value (Node joins repeated ones with commas) is `chunked` alone. */
function onlyChunked(value: string): boolean {
  const codings = value
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '');
  return codings.length === 1 && codings[0]!.toLowerCase() === 'chunked';
}

/**
 * The error a misframed request is answered with (`framingProblem`), undefined for a request
 * framed as it should be. Its connection is condemned: closed after the answer, and every request
 * Node still parses on it (where this one's body ends cannot be trusted, so what follows may be a
 * request smuggled past a proxy) is never handled (`onCondemned`). The first thing either platform
 * asks of a request.
 */
export function misframed(
  req: IncomingMessage,
  res: ServerResponse,
): MalformedRequestError | undefined {
  const problem = framingProblem(req);
  if (problem === undefined) return undefined;
  condemn(req, res);
  return new MalformedRequestError(problem);
}

/** Closes `req`'s connection after `res`, and refuses whatever else arrives on it. */
export function condemn(req: IncomingMessage, res: ServerResponse): void {
  condemned.add(req.socket);
  closeAfterResponse(res);
}

/**
 * Whether `req` came on a condemned connection, after a misframed request: the platform then
 * neither handles nor answers it (its connection is closing), so no side effect of it happens.
 */
export function onCondemned(req: IncomingMessage): boolean {
  return condemned.has(req.socket);
}
