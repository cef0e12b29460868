import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';

/** `code` of every error raised because a destination address is refused. */
export const SSRF_BLOCKED_CODE = 'EBLOCKED';

export const SSRF_BLOCKED_MESSAGE =
  'destination address is not allowed (private, loopback or reserved network)';

/**
 * Raised (or passed to a callback) when a webhook destination is refused by the SSRF policy.
 *
 * The message deliberately names neither the resolved address nor its range: it ends up in
 * `last_error`, which the webhook's owner can read, and echoing what an arbitrary hostname resolves
 * to would turn the sender into a probe of the internal DNS.
 */
export class SsrfBlockedError extends Error {
  readonly code = SSRF_BLOCKED_CODE;

  constructor() {
    super(SSRF_BLOCKED_MESSAGE);
    this.name = 'SsrfBlockedError';
  }
}

export function isSsrfBlockedError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === SSRF_BLOCKED_CODE
  );
}

// 64:ff9b::/96 is the well-known NAT64 prefix: under DNS64 every IPv4-only receiver resolves to
// it, so refusing it outright would break delivery on IPv6-only hosts; judge the embedded IPv4
// address instead. The same holds for the other IPv6 ranges that carry an IPv4 address.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
// ::/96 (deprecated IPv4-compatible addresses, e.g. ::127.0.0.1) is not a named range in ipaddr.js
// and would otherwise pass as `unicast`; nothing legitimate lives there.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return ipaddr.fromByteArray(bytes.slice(12, 16)) as ipaddr.IPv4;
}

function isForbiddenIPv4(address: ipaddr.IPv4): boolean {
  // Allow-list rather than deny-list: every special-purpose range ipaddr.js knows (loopback,
  // private, link-local, CGNAT, multicast, 0.0.0.0/8, broadcast, reserved, benchmarking, ...)
  // is refused, including ones added by future versions of the library.
  return address.range() !== 'unicast';
}

function isForbiddenIPv6(address: ipaddr.IPv6): boolean {
  const range: string = address.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return isForbiddenIPv4(embeddedIPv4(address));
    case 'rfc6052':
      // Only the well-known /96 embeds an address in its last 32 bits; the local-use
      // 64:ff9b:1::/48 is a site-internal translator and stays forbidden.
      return address.match(NAT64_WELL_KNOWN) ? isForbiddenIPv4(embeddedIPv4(address)) : true;
    case '6to4': {
      const bytes = address.toByteArray();
      return isForbiddenIPv4(ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4);
    }
    case 'unicast':
      return address.match(IPV4_COMPATIBLE);
    default:
      return true;
  }
}

/**
 * True when a webhook must not be delivered to `ip`. Anything that is not a syntactically valid
 * IP address is forbidden too, so a caller passing a hostname by mistake fails closed.
 */
export function isForbiddenAddress(ip: string): boolean {
  const literal = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // net.isIP only accepts the canonical dotted-quad form, unlike ipaddr.parse which also takes
  // "127.1" or "0x7f.0.0.1": addresses reaching us come from the URL parser or from getaddrinfo,
  // which both produce canonical text, so anything else is suspicious.
  const version = net.isIP(literal);
  if (version === 4) return isForbiddenIPv4(ipaddr.IPv4.parse(literal));
  if (version === 6) {
    const address = parseIPv6(literal);
    return address === null || isForbiddenIPv6(address);
  }
  return true;
}

function parseIPv6(literal: string): ipaddr.IPv6 | null {
  // The zone only selects an interface; the address alone decides the range.
  const address = literal.split('%')[0] ?? '';
  if (!address.includes('.')) return ipaddr.IPv6.parse(address);
  // ipaddr.js reads the dotted tail of "::a.b.c.d" as "::ffff:a.b.c.d", turning an
  // IPv4-compatible address into an IPv4-mapped one; the WHATWG URL parser gets it right.
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${address}]`).hostname.slice(1, -1));
  } catch {
    return null;
  }
}

/**
 * For a URL hostname (`url.hostname`, brackets included for IPv6): an error when it is an IP
 * literal the policy refuses, else null. Hostnames are left to the lookup, because Node skips
 * `lookup` entirely when connecting to a literal address.
 */
export function checkHostLiteral(hostname: string): SsrfBlockedError | null {
  const literal =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (net.isIP(literal) === 0) return null;
  return isForbiddenAddress(literal) ? new SsrfBlockedError() : null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

export type SafeLookup = (
  hostname: string,
  options: dns.LookupOptions,
  callback: LookupCallback,
) => void;

export type Resolver = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/**
 * A `dns.lookup` replacement for `net.connect`/`tls.connect` (undici `connect.lookup`). It always
 * resolves every address and refuses the host when ANY of them is forbidden: checking only the one
 * returned would let a name with one public and one internal record slip through when the
 * connection falls back (happy eyeballs) to the other. Because the socket connects to exactly what
 * this returns, a DNS answer that changes between a pre-check and the connect (rebinding) cannot
 * bypass it.
 */
export function createSafeLookup(resolve: Resolver = dns.lookup): SafeLookup {
  return (hostname, options, callback) => {
    const { all, ...rest } = options;
    resolve(hostname, { ...rest, all: true }, (err, addresses) => {
      if (err) {
        callback(err, all ? [] : '');
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        const notFound: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
        notFound.code = 'ENOTFOUND';
        callback(notFound, all ? [] : '');
        return;
      }
      if (addresses.some((entry) => isForbiddenAddress(entry.address))) {
        callback(new SsrfBlockedError(), all ? [] : '');
        return;
      }
      if (all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

export interface GuardedConnectorOptions {
  /** Connect timeout in milliseconds. */
  timeout: number;
  allowPrivateNetworks: boolean;
  /** Injected for tests; defaults to `dns.lookup`. */
  resolve?: Resolver;
}

/**
 * An undici connector that applies the SSRF policy before any socket is opened: IP literals are
 * judged directly (Node does not call `lookup` for them) and hostnames through
 * `createSafeLookup`. Putting the check in the connector rather than only in the caller covers
 * every connection the agent opens, including new pooled ones.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  if (options.allowPrivateNetworks) return buildConnector({ timeout: options.timeout });
  const connect = buildConnector({
    timeout: options.timeout,
    lookup: createSafeLookup(options.resolve),
  });
  return (connectOptions, callback) => {
    const refusal = checkHostLiteral(connectOptions.hostname);
    if (refusal) {
      callback(refusal, null);
      return;
    }
    connect(connectOptions, callback);
  };
}
