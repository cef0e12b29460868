import type { Server } from 'node:http';

/** How often at most a dropped connection is logged (with the count since the last line). */
const LOG_EVERY_MS = 60_000;

/**
 * Bounds the connections the server holds open: past `max`, Node closes a new connection as soon
 * as it is accepted, before any byte of it is read. Without a bound, a client that opens
 * connections and trickles their heads (each may take `headersTimeout`, 60 s) holds file
 * descriptors until the process has none left, and then the database pool, the webhook sender and
 * every other caller fail too; with one, that client only fills the HTTP side. `warn` is told at
 * most once a minute how many were dropped.
 */
export function capConnections(
  server: Server,
  max: number,
  warn: (dropped: number, max: number) => void,
): void {
  server.maxConnections = max;
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;
  server.on('drop', () => {
    dropped += 1;
    if (timer) return;
    warn(dropped, max);
    dropped = 0;
    timer = setTimeout(() => {
      timer = undefined;
      if (dropped > 0) warn(dropped, max);
      dropped = 0;
    }, LOG_EVERY_MS);
    timer.unref();
  });
}
