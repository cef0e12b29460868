import fc from 'fast-check';
import { describe, expect, it } from '@jest/globals';
import { clientAddress, countedAddress } from './client-address.js';

const SOCKET = '127.0.0.1';
const octet = fc.integer({ min: 0, max: 255 });
const octets = fc.tuple(octet, octet, octet, octet);

/** Other spellings of one IPv4 address that lenient parsers (inet_aton, ipaddr.js) also read. */
const spellings = (o: number[]) => {
  const n = ((o[0]! << 24) >>> 0) + (o[1]! << 16) + (o[2]! << 8) + o[3]!;
  return [
    o.map((x) => `0${x.toString(8)}`).join('.'), // octal, a leading zero each
    o.map((x) => `0x${x.toString(16)}`).join('.'), // hexadecimal
    o.map((x) => x.toString().padStart(3, '0')).join('.'), // zero-padded decimal
    String(n), // one 32-bit number
    `0x${n.toString(16)}`,
    `${o[0]}.${(o[1]! << 16) + (o[2]! << 8) + o[3]!}`, // two parts
    `${o[0]}.${o[1]}.${(o[2]! << 8) + o[3]!}`, // three parts
    ` ${o.join('.')}`,
    `${o.join('.')}.`,
    `::ffff:${o.map((x) => `0${x.toString(8)}`).join('.')}`,
  ];
};

describe('client address', () => {
  it('takes canonical dotted-quad IPv4 and IPv6 text (mapped too) as they are', () => {
    fc.assert(
      fc.property(octets, fc.ipV6(), (o, v6) => {
        const v4 = o.join('.');
        expect(clientAddress(v4, SOCKET)).toBe(v4);
        expect(clientAddress(`::ffff:${v4}`, SOCKET)).toBe(`::ffff:${v4}`);
        expect(clientAddress(v6, SOCKET)).toBe(v6);
        expect(clientAddress(v6.toUpperCase(), SOCKET)).toBe(v6.toUpperCase());
      }),
    );
  });

  it('makes every other spelling of an IPv4 address unknown', () => {
    fc.assert(
      fc.property(octets, (o) => {
        for (const text of spellings(o)) {
          // a spelling that happens to be canonical (0.0.0.0 zero-padded is not; 0x0 is not) stays
          if (text === o.join('.')) continue;
          expect({ text, address: clientAddress(text, SOCKET) }).toEqual({
            text,
            address: undefined,
          });
        }
      }),
    );
    for (const text of ['012.1.1.1', '10.1', '0x0a.1.1.1', '167837953', '10.1.1.1.1', '']) {
      expect(clientAddress(text, SOCKET)).toBeUndefined();
    }
  });

  it('makes an IPv6 address with a zone id, or anything not an address, unknown', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.stringMatching(/^[0-9a-z]{1,8}$/), (v6, zone) => {
        expect(clientAddress(`${v6}%${zone}`, SOCKET)).toBeUndefined();
      }),
    );
    expect(clientAddress('unknown', SOCKET)).toBeUndefined();
    expect(clientAddress('[2001:db8::1]', SOCKET)).toBeUndefined();
  });

  it('keeps the socket address as the operating system wrote it, and no address as none', () => {
    expect(clientAddress('fe80::1%eth0', 'fe80::1%eth0')).toBe('fe80::1%eth0');
    expect(clientAddress(undefined, SOCKET)).toBeUndefined();
  });

  it('counts a request of unknown address under its peer', () => {
    const socket = { remoteAddress: '192.0.2.7' };
    expect(countedAddress({ ip: '10.1.1.1', socket })).toBe('10.1.1.1');
    expect(countedAddress({ ip: undefined, socket })).toBe('192.0.2.7');
    expect(countedAddress({ ip: undefined, socket: null })).toBeUndefined();
  });
});
