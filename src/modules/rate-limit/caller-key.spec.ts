import fc from 'fast-check';
import { describe, expect, it } from '@jest/globals';
import { callerKey, callerNetworkKey } from './caller-key.js';

const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
const hextets = (n: number) => fc.array(hextet, { minLength: n, maxLength: n });

describe('callerKey', () => {
  it('gives every address of one IPv6 /64 one key, and addresses of two /64s two keys', () => {
    fc.assert(
      fc.property(hextets(4), hextets(4), hextets(4), hextets(4), (net, a, b, otherNet) => {
        const key = callerKey([...net, ...a].join(':'));
        expect(callerKey([...net, ...b].join(':'))).toBe(key);
        const same = otherNet.every((h, i) => parseInt(h, 16) === parseInt(net[i]!, 16));
        expect(callerKey([...otherNet, ...a].join(':')) === key).toBe(same);
      }),
    );
  });

  it('keeps an IPv4 address, also IPv4-mapped, as it is', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const canonical = ip
          .split('.')
          .map((octet) => String(Number.parseInt(octet, 10)))
          .join('.');
        expect(callerKey(ip)).toBe(canonical);
        expect(callerKey(`::ffff:${ip}`)).toBe(canonical);
      }),
    );
  });

  it('writes an IPv6 /64 the same way however the address is written', () => {
    expect(callerKey('2001:DB8:0:0:1::1')).toBe('2001:db8:0:0::/64');
    expect(callerKey('2001:db8::1')).toBe(callerKey('2001:0db8:0000:0000:ffff::'));
  });

  it('puts every /64 of one IPv6 /48 in one network, and IPv4 in none', () => {
    fc.assert(
      fc.property(hextets(3), hextets(5), hextets(5), fc.ipV4(), (site, a, b, v4) => {
        const network = callerNetworkKey([...site, ...a].join(':'));
        expect(network).toBeDefined();
        expect(callerNetworkKey([...site, ...b].join(':'))).toBe(network);
        expect(callerNetworkKey(v4)).toBeUndefined();
        expect(callerNetworkKey(`::ffff:${v4}`)).toBeUndefined();
      }),
    );
    expect(callerNetworkKey('2001:db8:1::1')).not.toBe(callerNetworkKey('2001:db8:2::1'));
    expect(callerNetworkKey(undefined)).toBeUndefined();
  });

  it('keys an unknown or unparsable address as one caller', () => {
    expect(callerKey(undefined)).toBe('-');
    expect(callerKey('not an address')).toBe('-');
  });
});
