import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a closing connection waits for the client to close its side. */
export const LINGER_MS = 2_000;
/**
 * How much of an unread body a closing connection still reads: a small body is read to its end
 * (the client, done writing, reads the answer and closes), a big one is not read past this.
 */
export const LINGER_BYTES = 64 * 1024;

const lingering = new WeakSet<Socket>();
const bounded = new WeakSet<Duplex>();

/**
 * Answers the request, then closes its connection as RFC 9112 §9.6 describes for a body left
 * unread (a 401 before the body, a 413): `Connection: close`, the response, our side of the
 * connection half-closed, and the connection closed once the client closes its side or
 * `LINGER_MS` pass. Closing at once would reset the connection while the client is still
 * writing, and clients such as Node's `fetch` then report EPIPE instead of the answer. Of what
 * the client still sends, at most `LINGER_BYTES` are read (and dropped): reading a refused upload
 * to its end cost every other caller (40 unauthenticated 5 MiB uploads moved another caller's
 * p99 from about 50 ms to 1 s), and the close needs only the time the client takes to read the
 * answer, not its body.
 */
export function closeAfterResponse(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  const socket = res.socket;
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  const req = res.req;
  // before Node's own listener, which would read the rest of an unread body however long it is
  res.prependOnceListener('finish', () => {
    if (req.complete) return;
    req.removeAllListeners('data');
    let left = LINGER_BYTES;
    req.on('data', (chunk: Buffer) => {
      left -= chunk.length;
      // paused, the request stops its connection's reading once Node's small buffer is full
      if (left <= 0) req.pause();
    });
  });
  // Node's HTTP server ends a `Connection: close` exchange with destroySoon(), which closes the
  // reading side too
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    closeWithin(this, LINGER_MS);
  };
}

/**
 * Destroys `socket` in `ms` unless it has closed by then: a connection whose end we have asked
 * for closes only when the client closes its side, which a hostile client never does.
 */
export function closeWithin(socket: Duplex, ms: number): void {
  if (bounded.has(socket) || socket.destroyed) return;
  bounded.add(socket);
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** Runs `listener` once the response is done (sent, or its connection gone), now if it already is. */
export function whenResponseClosed(res: ServerResponse, listener: () => void): void {
  if (res.closed) listener();
  else res.once('close', listener);
}
