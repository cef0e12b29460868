import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a closing connection keeps reading what the client still sends. */
export const LINGER_MS = 2_000;

const lingering = new WeakSet<Socket>();

/**
 * Answers the request, then closes its connection as RFC 9112 §9.6 describes for a body left
 * unread (a 401 before the body, a 413): `Connection: close`, the response, our side of the
 * connection half-closed, and what the client still sends read and dropped until it closes its
 * side or `LINGER_MS` pass. Closing at once would reset the connection while the client is still
 * writing, and clients such as Node's `fetch` then report EPIPE instead of the answer.
 */
export function closeAfterResponse(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  const socket = res.socket;
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  // Node's HTTP server ends a `Connection: close` exchange with destroySoon(), which closes the
  // reading side too; the request's unread body is already being dropped (IncomingMessage._dump)
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/** Runs `listener` once the response is done (sent, or its connection gone), now if it already is. */
export function whenResponseClosed(res: ServerResponse, listener: () => void): void {
  if (res.closed) listener();
  else res.once('close', listener);
}
