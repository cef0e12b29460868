import ipaddr from 'ipaddr.js';

/**
 * The key a caller's address is counted under by the per-address limits: an IPv4 address as it
 * is (also when it arrives IPv4-mapped, `::ffff:a.b.c.d`), an IPv6 address by its /64, the
 * smallest network a site is given (one host can take any of its 2^64 addresses, so counting per
 * address would let it step around the limit); `-` when the address is unknown.
 */
export function callerKey(ip: string | undefined): string {
  if (ip === undefined || !ipaddr.isValid(ip)) return '-';
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * The network a caller's IPv6 address belongs to, by its /48 (what a site is commonly given, and
 * 65,536 /64s), for a second, wider budget; undefined for an IPv4 or unknown address.
 */
export function callerNetworkKey(ip: string | undefined): string | undefined {
  if (ip === undefined || !ipaddr.isValid(ip)) return undefined;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return undefined;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 3).map((part) => part.toString(16));
  return `${parts.join(':')}::/48`;
}
