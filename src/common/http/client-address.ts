import { isIP } from 'node:net';

/**
 * An address as a client address may be written: canonical dotted-quad IPv4 (four parts 0..255,
 * no leading zeros) or IPv6 text (IPv4-mapped included), without a zone id. `net.isIP` is that
 * strict on IPv4, where the parser the HTTP servers use (ipaddr.js, through proxy-addr) also reads
 * `012.1.1.1` as octal 10.1.1.1, `10.1`, `0x0a.1.1.1` and `167837953`, which would then be matched
 * against IP allowlists as the addresses they spell. A zone id (`fe80::1%eth0`) names an interface
 * of the host that wrote it, nothing a remote proxy's entry can mean here.
 */
export function isClientAddressText(text: string): boolean {
  return isIP(text) !== 0 && !text.includes('%');
}

/**
 * The client address of a request from what the HTTP server read (`ip`: the `X-Forwarded-For`
 * entry TRUST_PROXY chose, or the socket's address) and the socket's own: an entry that is not an
 * address as `isClientAddressText` takes it is no address (undefined), so no allowlist matches it.
 * The socket's address is the operating system's text, kept as it is.
 */
export function clientAddress(
  ip: string | undefined,
  socketAddress: string | undefined,
): string | undefined {
  if (ip === undefined || ip === socketAddress) return ip;
  return isClientAddressText(ip) ? ip : undefined;
}

/**
 * The address a request is counted under by the per-address limits: the client address, or, when
 * it is unknown (an `X-Forwarded-For` entry that is no address), the address of the peer that sent
 * the request, so that writing nonsense there does not escape a limit or share another's budget.
 */
export function countedAddress(req: {
  readonly ip: string | undefined;
  readonly socket?: { readonly remoteAddress?: string } | null;
}): string | undefined {
  return req.ip ?? req.socket?.remoteAddress;
}

/**
 * Fixes `req.ip` to `clientAddress` for the rest of the request, as the first thing the platform
 * does with it: both servers' own `ip` getters give the chosen entry's text as it was written. An
 * own property shadows the getter, so the entry is also read once instead of at every use.
 */
export function settleClientAddress(req: {
  readonly ip: string | undefined;
  readonly socket?: { readonly remoteAddress?: string } | null;
}): void {
  const ip = clientAddress(req.ip, req.socket?.remoteAddress);
  Object.defineProperty(req, 'ip', { value: ip, enumerable: true, configurable: true });
}
