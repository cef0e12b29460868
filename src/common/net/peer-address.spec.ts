import { describe, expect, it } from '@jest/globals';
import { peerKey, trustedPeer } from './peer-address.js';

describe('peerKey', () => {
  it('counts an IPv4 address as it is, also when it arrives IPv4-mapped', () => {
    expect(peerKey('192.0.2.7')).toBe('192.0.2.7');
    expect(peerKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('counts an IPv6 address by its /64, so one host cannot step around the cap', () => {
    expect(peerKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:3::1')).not.toBe(peerKey('2001:db8:1:2::1'));
  });

  it('counts an unknown address under one key', () => {
    expect(peerKey(undefined)).toBe('-');
    expect(peerKey('not an address')).toBe('-');
  });
});

describe('trustedPeer', () => {
  it('trusts no peer without TRUST_PROXY, every peer with a hop count', () => {
    expect(trustedPeer(false)('10.0.0.1')).toBe(false);
    expect(trustedPeer(1)('203.0.113.9')).toBe(true);
  });

  it('trusts the listed addresses, ranges and named ranges only', () => {
    const trusted = trustedPeer(['192.0.2.7', '10.0.0.0/8', 'loopback', '2001:db8::/32']);
    expect(trusted('192.0.2.7')).toBe(true);
    expect(trusted('::ffff:192.0.2.7')).toBe(true);
    expect(trusted('192.0.2.8')).toBe(false);
    expect(trusted('10.200.1.1')).toBe(true);
    expect(trusted('127.0.0.2')).toBe(true);
    expect(trusted('::1')).toBe(true);
    expect(trusted('2001:db8:5::1')).toBe(true);
    expect(trusted('2001:db9::1')).toBe(false);
    expect(trusted(undefined)).toBe(false);
  });
});
