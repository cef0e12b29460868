import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import {
  SSRF_BLOCKED_CODE,
  SsrfBlockedError,
  checkHostLiteral,
  createGuardedConnector,
  createSafeLookup,
  isForbiddenAddress,
  type Resolver,
} from './ssrf.js';

describe('isForbiddenAddress', () => {
  it.each([
    ['loopback', ['127.0.0.1', '127.255.255.254', '::1']],
    ['private', ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1']],
    ['link-local', ['169.254.169.254', '169.254.0.1', 'fe80::1', 'febf:ffff::1', 'fe80::1%eth0']],
    ['CGNAT', ['100.64.0.1', '100.127.255.255']],
    ['multicast', ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1']],
    ['unspecified and 0.0.0.0/8', ['0.0.0.0', '0.1.2.3', '::']],
    ['broadcast', ['255.255.255.255']],
    [
      'reserved',
      ['240.0.0.1', '192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '2001:db8::1'],
    ],
    ['unique-local', ['fc00::1', 'fd12:3456:789a::1']],
    ['site-local (deprecated)', ['fec0::1']],
    [
      'IPv4-mapped IPv6 of forbidden addresses',
      [
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::ffff:10.0.0.1',
        '::ffff:169.254.169.254',
        '::ffff:0.0.0.0',
      ],
    ],
    ['IPv4-translated (RFC 6145) of forbidden addresses', ['::ffff:0:127.0.0.1', '::ffff:0:a00:1']],
    ['IPv4-compatible (deprecated)', ['::127.0.0.1', '::a00:1', '::8.8.8.8']],
    [
      'NAT64 of forbidden addresses, and local-use NAT64',
      ['64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b:1::808:808'],
    ],
    ['6to4 of forbidden addresses', ['2002:7f00:1::1', '2002:a9fe:a9fe::1']],
    ['Teredo', ['2001:0:4136:e378:8000:63bf:3fff:fdd2']],
    ['bracketed literals', ['[::1]', '[fe80::1]']],
    [
      'anything that is not a canonical IP literal',
      ['', 'localhost', 'example.com', '127.1', '0x7f000001', '2130706433'],
    ],
  ])('forbids %s', (_label, addresses) => {
    // the addresses that are not forbidden, by name
    expect(addresses.filter((address) => isForbiddenAddress(address) !== true)).toEqual([]);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '11.0.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.167.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001:82a::200e]',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('checkHostLiteral', () => {
  it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]', '[::ffff:7f00:1]', '[fd00::1]'])(
    'refuses the forbidden literal %s',
    (host) => {
      const error = checkHostLiteral(host);
      expect(error).toBeInstanceOf(SsrfBlockedError);
      expect(error?.code).toBe(SSRF_BLOCKED_CODE);
      expect(error?.message).toMatch(/not allowed/);
    },
  );

  it.each(['8.8.8.8', '[2606:4700:4700::1111]', 'example.com', 'localhost'])(
    'leaves %s to the lookup or lets it through',
    (host) => {
      expect(checkHostLiteral(host)).toBeNull();
    },
  );

  it('sees through the URL parser normalising odd IPv4 spellings', () => {
    const urls = [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://017700000001/',
      'http://[::ffff:127.0.0.1]/',
    ];
    // the URLs whose host is not refused, by name
    const notRefused = urls.filter(
      (url) => !(checkHostLiteral(new URL(url).hostname) instanceof SsrfBlockedError),
    );
    expect(notRefused).toEqual([]);
  });
});

function fakeResolver(addresses: LookupAddress[]): Resolver & { calls: unknown[] } {
  const calls: unknown[] = [];
  const resolve = ((hostname, options, callback) => {
    calls.push({ hostname, options });
    queueMicrotask(() => callback(null, addresses));
  }) as Resolver & { calls: unknown[] };
  resolve.calls = calls;
  return resolve;
}

function lookupAsync(
  lookup: ReturnType<typeof createSafeLookup>,
  hostname: string,
  options: { all?: boolean; family?: number },
): Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family: number | undefined }> {
  return new Promise((resolve) => {
    lookup(hostname, options, (err, address, family) => resolve({ err, address, family }));
  });
}

// The lookup tests only ever call a fake resolver, never connect: no packet leaves the process.
describe('createSafeLookup', () => {
  const publicV4 = { address: '93.184.216.34', family: 4 };
  const publicV6 = { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 };

  it('returns every address when asked for all of them', async () => {
    const resolve = fakeResolver([publicV4, publicV6]);
    const result = await lookupAsync(createSafeLookup(resolve), 'example.com', {
      all: true,
      family: 0,
    });
    expect(result.err).toBeNull();
    expect(result.address).toEqual([publicV4, publicV6]);
    expect(resolve.calls).toEqual([{ hostname: 'example.com', options: { all: true, family: 0 } }]);
  });

  it('returns the first address in the single-address form, having checked them all', async () => {
    const resolve = fakeResolver([publicV4, publicV6]);
    const result = await lookupAsync(createSafeLookup(resolve), 'example.com', { family: 0 });
    expect(result).toEqual({ err: null, address: publicV4.address, family: 4 });
    expect(resolve.calls).toEqual([{ hostname: 'example.com', options: { all: true, family: 0 } }]);
  });

  it.each([
    [[{ address: '10.0.0.1', family: 4 }]],
    [[publicV4, { address: '169.254.169.254', family: 4 }]],
    [[publicV6, { address: '::ffff:127.0.0.1', family: 6 }]],
    [[{ address: 'fd00::1', family: 6 }, publicV4]],
  ])('refuses when any resolved address is forbidden: %j', async (addresses) => {
    for (const all of [true, false]) {
      const result = await lookupAsync(createSafeLookup(fakeResolver(addresses)), 'evil.example', {
        all,
      });
      expect(result.err).toBeInstanceOf(SsrfBlockedError);
      expect(result.err?.code).toBe(SSRF_BLOCKED_CODE);
      expect(result.err?.message).toMatch(/not allowed/);
      // The resolved address must not leak into the message (it would become a DNS oracle).
      expect(result.err?.message).not.toMatch(/10\.0\.0\.1|169\.254|127\.0\.0\.1|fd00/);
    }
  });

  it('passes resolver errors through and treats an empty answer as not found', async () => {
    const failing: Resolver = (_hostname, _options, callback) => {
      const error: NodeJS.ErrnoException = new Error('getaddrinfo ENOTFOUND nowhere.invalid');
      error.code = 'ENOTFOUND';
      callback(error, []);
    };
    expect((await lookupAsync(createSafeLookup(failing), 'nowhere.invalid', {})).err?.code).toBe(
      'ENOTFOUND',
    );
    expect(
      (await lookupAsync(createSafeLookup(fakeResolver([])), 'empty.example', {})).err?.code,
    ).toBe('ENOTFOUND');
  });

  it('refuses localhost with the real resolver', async () => {
    const result = await lookupAsync(createSafeLookup(), 'localhost', { all: true });
    expect(result.err?.code).toBe(SSRF_BLOCKED_CODE);
  });
});

describe('createGuardedConnector', () => {
  let server: http.Server | undefined;

  afterEach(async () => {
    jest.restoreAllMocks();
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });

  // Tripwire: if the guard were broken, fail instead of sending a packet off this machine.
  function tripwire(): string[] {
    const attempted: string[] = [];
    const realConnect = net.connect.bind(net) as (...args: unknown[]) => net.Socket;
    jest.spyOn(net, 'connect').mockImplementation(((options: net.NetConnectOpts) => {
      const host = (options as net.TcpNetConnectOpts).host ?? '';
      attempted.push(host);
      if (host !== 'localhost' && host !== 'loopback.test') {
        throw new Error(`tripwire: refusing to connect to ${host}`);
      }
      return realConnect(options);
    }) as typeof net.connect);
    jest.spyOn(tls, 'connect').mockImplementation(() => {
      attempted.push('tls');
      throw new Error('tripwire: no TLS in this test');
    });
    return attempted;
  }

  function connectAsync(
    connector: ReturnType<typeof createGuardedConnector>,
    hostname: string,
    port: number,
  ): Promise<{ code: unknown; socket: net.Socket | null }> {
    return new Promise((resolve) => {
      connector(
        { hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) },
        (err, socket) => resolve({ code: err ? (err as { code?: unknown }).code : null, socket }),
      );
    });
  }

  it.each(['10.0.0.1', '169.254.169.254', '127.0.0.1', '::1', '0.0.0.0'])(
    'refuses the literal %s without opening a socket',
    async (hostname) => {
      const attempted = tripwire();
      const connector = createGuardedConnector({ timeout: 100, allowPrivateNetworks: false });
      const { code, socket } = await connectAsync(connector, hostname, 9);
      expect(code).toBe(SSRF_BLOCKED_CODE);
      expect(socket).toBeNull();
      expect(attempted).toEqual([]);
    },
  );

  it('refuses a hostname resolving to a forbidden address before connecting', async () => {
    let connections = 0;
    server = http.createServer((_req, res) => res.end());
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const attempted = tripwire();
    // Only loopback answers, so even a broken guard could not reach beyond this machine.
    const connector = createGuardedConnector({
      timeout: 100,
      allowPrivateNetworks: false,
      resolve: fakeResolver([{ address: '127.0.0.1', family: 4 }]),
    });
    const { code } = await connectAsync(connector, 'loopback.test', port);
    expect(code).toBe(SSRF_BLOCKED_CODE);
    expect(attempted).toEqual(['loopback.test']);
    expect(connections).toBe(0);
  });

  it('connects to private addresses when they are allowed', async () => {
    server = http.createServer((_req, res) => res.end());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const connector = createGuardedConnector({ timeout: 1_000, allowPrivateNetworks: true });
    const { code, socket } = await connectAsync(connector, '127.0.0.1', port);
    expect(code).toBeNull();
    expect(socket).not.toBeNull();
    socket?.destroy();
  });
});
