import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { peerKey, peerSiteKey } from '../net/peer-address.js';
import { closeWithin, LINGER_MS } from './lingering-close.js';

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

/** An IPv6 site (/48) may hold this many times the per-address cap, as for the rate limits. */
export const SITE_FACTOR = 16;

/**
 * Bounds the connections one address holds open at once, by the connection's own peer address
 * (an IPv6 address by its /64, and its /48 at `SITE_FACTOR` times the cap), counted when Node accepts it, before any byte is read: so no
 * proxy header can speak for it. Past `max`, that address's new connection is closed at once, so
 * one address holding connections (trickled heads, slow bodies, idle keep-alives) leaves the
 * rest of `MAX_CONNECTIONS` to everyone else. Peers `exempt` says are proxies are not capped.
 * `warn` is told of drops at most once a minute, with how many there were and the last address.
 */
export function capConnectionsPerAddress(
  server: Server,
  max: number,
  exempt: (address: string | undefined) => boolean,
  warn: (dropped: number, max: number, address: string) => void,
): void {
  const open = new Map<string, number>();
  let dropped = 0;
  let last = '';
  let logging: NodeJS.Timeout | undefined;
  const report = (): void => {
    if (dropped === 0) {
      logging = undefined;
      return;
    }
    warn(dropped, max, last);
    dropped = 0;
    logging = setTimeout(report, LOG_EVERY_MS);
    logging.unref();
  };
  // before Node's own listener: a dropped connection gets no parser's work
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (exempt(address)) return;
    const key = peerKey(address);
    const site = peerSiteKey(address);
    const full =
      (open.get(key) ?? 0) >= max ||
      (site !== undefined && (open.get(site) ?? 0) >= max * SITE_FACTOR);
    if (full) {
      socket.destroy();
      dropped += 1;
      last = key;
      if (!logging) report();
      return;
    }
    const counted = site === undefined ? [key] : [key, site];
    for (const k of counted) open.set(k, (open.get(k) ?? 0) + 1);
    socket.once('close', () => {
      for (const k of counted) {
        const left = (open.get(k) ?? 1) - 1;
        if (left > 0) open.set(k, left);
        else open.delete(k);
      }
    });
  });
}

/**
 * A request head must arrive within `ms` of a connection's opening (or of the first byte of its
 * next request): Node answers one that does not 408 (a problem body, client-error.ts) on a check
 * it runs every `connectionsCheckingInterval`, by default 30 s, which would let a trickled head
 * live four times the bound; here a quarter of it, at most a second. Set before `listen`, which
 * starts the check. Every connection answered for a client error is also closed within
 * `LINGER_MS`: the answer only half-closes it, and a client that never closes its side (a
 * trickler cut by the head timeout) would otherwise keep it open for good.
 */
export function boundRequestHeads(server: Server, ms: number): void {
  server.headersTimeout = ms;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(1_000, Math.ceil(ms / 4));
  server.on('clientError', (_err: Error, socket: Duplex) => closeWithin(socket, LINGER_MS));
}
