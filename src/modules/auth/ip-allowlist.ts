import ipaddr from 'ipaddr.js';

function normalise(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(ip)) return null;
  const parsed = ipaddr.parse(ip);
  // an IPv4 client seen through a dual-stack socket arrives as ::ffff:a.b.c.d
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/** Canonical CIDR text (`10.0.0.0/8`, `2001:db8::/32`), or null when it is not a CIDR. */
export function normaliseCidr(cidr: string): string | null {
  try {
    const text = cidr.trim();
    const [addr, bits] = ipaddr.parseCIDR(text);
    const network =
      addr.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(text)
        : ipaddr.IPv6.networkAddressFromCIDR(text);
    return `${network.toString()}/${bits}`;
  } catch {
    return null;
  }
}

/** An empty allowlist admits any address; otherwise the address must fall in one of the CIDRs. */
export function ipAllowed(ip: string | undefined, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  const addr = ip ? normalise(ip) : null;
  if (!addr) return false;
  return allowlist.some((cidr) => {
    try {
      const range = ipaddr.parseCIDR(cidr);
      return addr.kind() === range[0].kind() && addr.match(range);
    } catch {
      return false;
    }
  });
}
