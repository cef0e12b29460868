import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface GracefulClose {
  /**
   * Stops accepting connections, closes idle keep-alive ones, makes every response still to be
   * sent close its connection, and resolves once the last request in flight has been answered;
   * after `timeoutMs` the connections still open are cut, so the application's own close (audit
   * drain, workers, pool) starts within a bound.
   */
  close(timeoutMs: number): Promise<void>;
}

const onClosing = new WeakMap<ServerResponse, () => void>();

/**
 * For a response that only ends when told to (an event stream): `end` runs as soon as its server
 * starts closing, so a shutdown does not wait out its timeout for a response that never finishes.
 */
export function endWhenServerCloses(res: ServerResponse, end: () => void): void {
  onClosing.set(res, end);
}

/**
 * Shutdown of the HTTP side, before the application closes its modules: a request still running
 * while their destroy hooks run would write through a closing pool (audit lines of the last
 * requests were lost that way). Works under either adapter: it needs only Node's server.
 */
export function gracefulClose(server: Server): GracefulClose {
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    // a keep-alive connection would hold the closing server open while its client keeps sending
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return {
    async close(timeoutMs) {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      for (const res of inFlight) onClosing.get(res)?.();
      server.close();
      server.closeIdleConnections();
      const deadline = Date.now() + timeoutMs;
      while (inFlight.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (inFlight.size > 0) server.closeAllConnections();
    },
  };
}
