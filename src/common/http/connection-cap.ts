import type { Server } from 'node:http';

/** How often at most dropped connections are logged (with the count since the last line). */
const LOG_EVERY_MS = 60_000;
/** How often at most idle keep-alive connections are closed to make room. */
const RECLAIM_EVERY_MS = 1_000;

/**
 * Bounds the connections the server holds open: past `max`, Node closes a new connection as soon
 * as it is accepted, before any byte of it is read. Without a bound, a client that opens
 * connections and trickles their heads (each may take `headersTimeout`, 60 s) holds file
 * descriptors until the process has none left, and then the database pool, the webhook sender and
 * every other caller fail too; with one, that client only fills the HTTP side.
 *
 * When a connection is dropped, the idle keep-alive connections (clients between requests) are
 * closed, at most once a second, so that callers waiting on no request do not keep new ones out.
 * `warn` is told of drops at most once a minute, with how many there were.
 */
export function capConnections(
  server: Server,
  max: number,
  warn: (dropped: number, max: number) => void,
): void {
  server.maxConnections = max;
  let dropped = 0;
  let logging: NodeJS.Timeout | undefined;
  let reclaimedAt = 0;
  const report = (): void => {
    if (dropped === 0) {
      logging = undefined;
      return;
    }
    warn(dropped, max);
    dropped = 0;
    logging = setTimeout(report, LOG_EVERY_MS);
    logging.unref();
  };
  server.on('drop', () => {
    dropped += 1;
    if (!logging) report();
    const now = Date.now();
    if (now - reclaimedAt >= RECLAIM_EVERY_MS) {
      reclaimedAt = now;
      server.closeIdleConnections();
    }
  });
}
