import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config/trust-proxy.js';

/** proxy-addr's named ranges, as Express and Fastify read them in `TRUST_PROXY`. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** An address as ipaddr reads it, an IPv4-mapped IPv6 address as the IPv4 address it carries. */
function parsed(address: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (address === undefined || !ipaddr.isValid(address)) return undefined;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (ip as ipaddr.IPv6).toIPv4Address();
  }
  return ip;
}

/**
 * The key a connection's peer is counted under (as the rate limits count callers): an IPv4
 * address as it is, IPv4-mapped included, an IPv6 address by its /64 (one host may use any of
 * 2^64 addresses); `-` when unknown.
 */
export function peerKey(address: string | undefined): string {
  const ip = parsed(address);
  if (!ip) return '-';
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * The IPv6 site a peer belongs to, by its /48 (a site is handed 65,536 /64s, so one /64 cap alone
 * would let it take every connection); undefined for IPv4 and unknown addresses.
 */
export function peerSiteKey(address: string | undefined): string | undefined {
  const ip = parsed(address);
  if (!ip || ip.kind() === 'ipv4') return undefined;
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 3).map((part) => part.toString(16));
  return `${parts.join(':')}::/48`;
}

/**
 * Whether `TRUST_PROXY` takes a connection's peer for a proxy: every peer with a hop count (the
 * nearest hops are trusted whatever their address), the listed addresses and ranges otherwise.
 */
export function trustedPeer(trust: TrustProxy): (address: string | undefined) => boolean {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return () => true;
  const ranges = trust
    .flatMap((entry) => NAMED_RANGES[entry] ?? [entry])
    .map((entry) => {
      const [address = '', prefix] = entry.split('/');
      const ip = parsed(address)!;
      const bits = prefix === undefined ? (ip.kind() === 'ipv4' ? 32 : 128) : Number(prefix);
      // a mapped address with a v6 prefix length: as the IPv4 range it stands for
      const v4Bits = address.includes(':') && ip.kind() === 'ipv4' ? Math.max(0, bits - 96) : bits;
      return [ip, v4Bits] as const;
    });
  return (address) => {
    const ip = parsed(address);
    return (
      ip !== undefined &&
      ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))
    );
  };
}
