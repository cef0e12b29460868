import net from 'node:net';

/** What `TRUST_PROXY` may be: off, a number of proxy hops, or the proxies' addresses. */
export type TrustProxy = false | number | string[];

const MAX_PROXY_HOPS = 10;
/** proxy-addr's names for ranges, which Express and Fastify both understand. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

export const TRUST_PROXY_FORMS =
  `false, a number of proxy hops (1..${MAX_PROXY_HOPS}), or a comma list of proxy addresses ` +
  `or CIDRs (${PROXY_RANGE_NAMES.join(', ')} name ranges)`;

/**
 * `true` used to believe the left-most `X-Forwarded-For` entry, which the client writes itself:
 * behind any proxy that appends, an IP allowlist was no wall. Refused rather than reinterpreted,
 * so a deployment that relied on it has to say what it runs behind.
 */
export const TRUST_PROXY_TRUE_REFUSED =
  'TRUST_PROXY=true is not accepted: it would believe whatever the client writes in ' +
  'X-Forwarded-For. Write the number of proxies in front of the service (TRUST_PROXY=1 behind ' +
  'one load balancer) or their addresses (TRUST_PROXY=10.0.0.0/8 or TRUST_PROXY=loopback,192.0.2.7)';

/** `false`/`0`/empty, a hop count, or the comma list; `true` and the rest fail validation. */
export const toTrustProxy = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim();
  if (/^(false|no|0)?$/i.test(v)) return false;
  if (/^\d+$/.test(v)) return Number(v);
  if (/^(true|yes)$/i.test(v)) return value;
  return v.split(',').map((entry) => entry.trim());
};

/**
 * `TRUST_PROXY` as both HTTP servers take it. A hop count becomes a function: Express reads a
 * number as "the last N hops", but Fastify 5 refuses numbers outright (every address untrusted);
 * the same function gives both the same client address.
 */
export function proxyTrust(
  value: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = net.isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

export function isTrustProxy(value: unknown): boolean {
  if (value === false) return true;
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 && value <= MAX_PROXY_HOPS;
  }
  return Array.isArray(value) && value.length > 0 && value.every((e) => isProxyAddress(String(e)));
}
