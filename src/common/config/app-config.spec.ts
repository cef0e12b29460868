import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './load-config.js';

describe('loadConfig', () => {
  it('uses the documented defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.BODY_LIMIT).toBe(5 * 1024 * 1024);
    expect(config.embedded).toBe(true);
    expect(config.TRUST_PROXY).toBe(false);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.DATABASE_POOL_MODE).toBe('session');
    expect(config.DATABASE_POOL_SIZE).toBe(20);
    expect(config.RETENTION_EVENT_DAYS).toBe(30);
    expect(config.retentionEventSeconds).toBe(30 * 86_400);
  });

  it('parses sizes, booleans and integers', () => {
    const config = loadConfig({ BODY_LIMIT: '512kb', WEBHOOK_ALLOW_HTTP: 'yes', PORT: '8080' });
    expect(config.BODY_LIMIT).toBe(512 * 1024);
    expect(config.WEBHOOK_ALLOW_HTTP).toBe(true);
    expect(config.PORT).toBe(8080);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['1', 1],
    [' 2 ', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 2001:db8::/32,loopback', ['10.0.0.0/8', '2001:db8::/32', 'loopback']],
    ['uniquelocal,linklocal', ['uniquelocal', 'linklocal']],
  ])('reads TRUST_PROXY=%s as a hop count or a proxy list', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['true', 'TRUE', 'yes'])('refuses TRUST_PROXY=%s and says what to write', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      /TRUST_PROXY: TRUST_PROXY=true is not accepted.*TRUST_PROXY=1 .*TRUST_PROXY=10\.0\.0\.0\/8/,
    );
  });

  it.each(['11', '-1', '1.5', '10.0.0.0/33', '2001:db8::/129', '10.0.0.1,', 'localhost', '127.1'])(
    'refuses TRUST_PROXY=%s, naming the accepted forms',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY: TRUST_PROXY must be false, a number of proxy hops \(1\.\.10\), or a comma list/,
      );
    },
  );

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['WEBHOOK_SECRET_KEY', Buffer.alloc(16).toString('base64')],
    ['DATABASE_URL', 'mysql://x'],
    ['TRUST_PROXY', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'yaml'],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,soon'],
    ['BODY_LIMIT', 'huge'],
    ['WEBHOOK_LEASE_MARGIN_MS', '500'],
    ['DATABASE_POOL_MODE', 'statement'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_LISTEN_URL', 'http://x'],
    ['RETENTION_EVENT_DAYS', '0'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid configuration:\\n  ${name}:`),
    );
  });

  it('serves /metrics on the platform listener only by default (loopback, port 3001)', () => {
    const config = loadConfig({});
    expect({
      token: config.METRICS_TOKEN,
      port: config.METRICS_PORT,
      host: config.METRICS_HOST,
      platformPort: config.PLATFORM_API_PORT,
      platformHost: config.PLATFORM_API_HOST,
    }).toEqual({
      token: undefined,
      port: undefined,
      host: '127.0.0.1',
      platformPort: 3001,
      platformHost: '127.0.0.1',
    });
  });

  it.each([
    ['off', false],
    ['OFF', false],
    ['0', 0],
    ['4001', 4001],
  ])('reads PLATFORM_API_PORT=%s', (value, expected) => {
    expect(loadConfig({ PLATFORM_API_PORT: value }).PLATFORM_API_PORT).toBe(expected);
  });

  it.each([
    [{ PLATFORM_API_PORT: 'no' }, 'PLATFORM_API_PORT must be a port (0..65535) or off'],
    [{ PLATFORM_API_PORT: '70000' }, 'PLATFORM_API_PORT must be a port (0..65535) or off'],
    [{ METRICS_PORT: 'x' }, 'METRICS_PORT'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be at least 16 characters'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('accepts a 32-byte base64 webhook key', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ WEBHOOK_SECRET_KEY: key }).WEBHOOK_SECRET_KEY).toBe(key);
  });
});
