import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  jest,
} from '@jest/globals';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import type { Resolver } from './ssrf.js';
import {
  DESTINATION_UNAVAILABLE_MESSAGE,
  RESPONSE_EXCERPT_BYTES,
  WEBHOOK_USER_AGENT,
  WebhookSender,
  type AttemptResult,
} from './webhook-sender.js';
import { excerptText } from './response-excerpt.js';

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const TIMEOUT_MS = 300;

let server: http.Server;
let origin: string;
let port: number;
let received: Received[];
let connections: number;
/** Bytes the `/endless` route managed to write, and whether its connection was closed. */
let endless: { written: number; closed: boolean };

// One receiver, routed by path, so every test knows exactly what was requested.
function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
  switch (new URL(req.url ?? '/', 'http://receiver').pathname) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      return;
    case '/accepted':
      res.writeHead(202).end();
      return;
    case '/error':
      res.writeHead(500, { 'retry-after': '60' }).end('boom: internal details');
      return;
    case '/redirect':
      res.writeHead(302, { location: '/redirected' }).end();
      return;
    case '/gone':
      res.writeHead(410).end();
      return;
    case '/limited':
      res.writeHead(429, { 'retry-after': '120' }).end();
      return;
    case '/unavailable':
      res.writeHead(503, { 'retry-after': new Date(Date.now() + 90_000).toUTCString() }).end();
      return;
    case '/big':
      res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end(Buffer.alloc(1024 * 1024));
      return;
    case '/multibyte':
      // 1 + 2 × 600 bytes: the 512th 'é' straddles the 1 KiB boundary
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`a${'é'.repeat(600)}`);
      return;
    case '/endless': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) endless.written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => (endless.closed = true));
      pump();
      return; // never ends by itself
    }
    case '/slow-body':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      return; // never ends
    case '/hang':
      return; // never answers
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  // jest loads what undici needs for its first request (lazily, through jest's module registry) far
  // slower than Node does: 50-100 ms on an idle machine, more than TIMEOUT_MS on a busy one. One
  // request without that deadline first, so no test below measures the loading.
  received = [];
  connections = 0;
  const warmUp = new WebhookSender({
    timeoutMs: 30_000,
    allowPrivateNetworks: true,
    allowHttp: true,
  });
  expect((await warmUp.send(attempt('/ok'))).outcome).toBe('succeeded');
  await warmUp.close();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  connections = 0;
  endless = { written: 0, closed: false };
});

function attempt(path: string, body = '{"id":"evt_1","type":"document.checked_in"}') {
  return { url: `${origin}${path}`, secret, eventId: 'evt_1', body };
}

function expectNoSecret(result: AttemptResult): void {
  expect(JSON.stringify(result)).not.toContain(secret.slice('whsec_'.length));
}

describe('WebhookSender (private networks allowed, local receiver)', () => {
  let sender: WebhookSender;

  beforeEach(() => {
    sender = new WebhookSender({
      timeoutMs: TIMEOUT_MS,
      allowPrivateNetworks: true,
      allowHttp: true,
    });
  });

  afterEach(async () => {
    await sender.close();
  });

  it('sends a Standard Webhooks request a receiver can verify', async () => {
    const body = JSON.stringify({
      id: 'evt_42',
      type: 'document.version_created',
      data: { title: 'Zürich ✓' },
    });
    const result = await sender.send({
      url: `${origin}/ok?tenant=7`,
      secret,
      eventId: 'evt_42',
      body,
    });

    expect(result).toMatchObject({
      outcome: 'succeeded',
      statusCode: 200,
      error: null,
      retryAfterMs: null,
    });
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', path: '/ok?tenant=7', body });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(request!.headers['webhook-id']).toBe('evt_42');
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);

    const headers = {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(request!.body, headers)).toEqual(JSON.parse(body));
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(request!.body, headers),
    ).toThrow();
    expect(() => new Webhook(secret).verify(`${request!.body} `, headers)).toThrow();
  });

  it('stamps and signs with the time of the attempt', async () => {
    const timestamp = new Date('2025-03-01T12:00:00.900Z');
    const body = '{"a":1}';
    await sender.send({ url: `${origin}/ok`, secret, eventId: 'evt_7', body, timestamp });

    const { headers } = received[0]!;
    expect(headers['webhook-timestamp']).toBe('1740830400');
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('evt_7', timestamp, body));
  });

  it('signs with the new and the previous secret during a rotation, new first', async () => {
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    const timestamp = new Date();
    const body = '{"b":2}';
    const result = await sender.send({
      url: `${origin}/ok`,
      secret,
      previousSecret: previous,
      eventId: 'evt_8',
      body,
      timestamp,
    });
    expect(result.outcome).toBe('succeeded');
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [
        h,
        String(received[0]!.headers[h]),
      ]),
    );
    expect(headers['webhook-signature']).toBe(
      `${new Webhook(secret).sign('evt_8', timestamp, body)} ${new Webhook(previous).sign('evt_8', timestamp, body)}`,
    );
    // a receiver holding either one alone verifies it; a third secret does not
    for (const key of [secret, previous]) {
      expect(new Webhook(key).verify(body, headers)).toEqual({ b: 2 });
    }
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, headers),
    ).toThrow();
    expectNoSecret(result);
    expect(JSON.stringify(result)).not.toContain(previous.slice('whsec_'.length));
  });

  it('treats any 2xx as success', async () => {
    expect(await sender.send(attempt('/accepted'))).toMatchObject({
      outcome: 'succeeded',
      statusCode: 202,
    });
  });

  it('reports a 500 as a failure with its status, without the body', async () => {
    const result = await sender.send(attempt('/error'));
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: 500,
      error: 'HTTP 500',
      retryAfterMs: null,
    });
    expect(result.error).not.toContain('boom');
  });

  it('does not follow redirects', async () => {
    const result = await sender.send(attempt('/redirect'));
    expect(result).toMatchObject({ outcome: 'failed', statusCode: 302 });
    expect(result.error).toMatch(/redirect/);
    expect(received.map((request) => request.path)).toEqual(['/redirect']);
  });

  it('reports 410 as gone', async () => {
    expect(await sender.send(attempt('/gone'))).toMatchObject({ outcome: 'gone', statusCode: 410 });
  });

  it('passes on Retry-After of a 429 (delta-seconds) and a 503 (HTTP-date)', async () => {
    expect(await sender.send(attempt('/limited'))).toMatchObject({
      outcome: 'failed',
      statusCode: 429,
      retryAfterMs: 120_000,
    });
    const unavailable = await sender.send(attempt('/unavailable'));
    expect(unavailable).toMatchObject({ outcome: 'failed', statusCode: 503 });
    // The HTTP-date has one-second resolution.
    expect(unavailable.retryAfterMs).toBeGreaterThan(88_000);
    expect(unavailable.retryAfterMs).toBeLessThanOrEqual(90_000);
  });

  it('fails a receiver that never answers within about timeoutMs', async () => {
    const result = await sender.send(attempt('/hang'));
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: `timed out after ${TIMEOUT_MS} ms`,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(result.durationMs).toBeLessThan(TIMEOUT_MS + 500);
  });

  it('decides on the status line and stops draining a body that never ends at the deadline', async () => {
    const result = await sender.send(attempt('/slow-body'));
    expect(result).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
    expect(result.durationMs).toBeLessThan(TIMEOUT_MS + 500);
  });

  it('discards large response bodies', async () => {
    expect(await sender.send(attempt('/big'))).toMatchObject({
      outcome: 'succeeded',
      statusCode: 200,
    });
  });

  it('reuses keep-alive connections for consecutive attempts', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await sender.send(attempt('/ok'))).outcome).toBe('succeeded');
    }
    expect(received).toHaveLength(20);
    // undici's pool may still count the previous request as running when the next one is
    // dispatched, and then alternates between two sockets; what matters is that they are reused.
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('handles concurrent attempts', async () => {
    // its own generous time-out: 200 sends at once on a loaded 2-core machine can outlast 300 ms
    const patient = new WebhookSender({
      timeoutMs: 10_000,
      allowPrivateNetworks: true,
      allowHttp: true,
    });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => patient.send(attempt('/ok'))),
    ).finally(() => patient.close());
    expect(results.every((result) => result.outcome === 'succeeded')).toBe(true);
    expect(received).toHaveLength(200);
  });

  it('reports a refused connection', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const result = await sender.send({ ...attempt('/'), url: `http://127.0.0.1:${closedPort}/` });
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: 'connection refused',
    });
  });

  it('refuses plain http unless allowed, and malformed URLs or secrets, without sending', async () => {
    const httpsOnly = new WebhookSender({
      timeoutMs: TIMEOUT_MS,
      allowPrivateNetworks: true,
      allowHttp: false,
    });
    try {
      expect(await httpsOnly.send(attempt('/ok'))).toMatchObject({
        outcome: 'failed',
        statusCode: null,
        error: 'endpoint URL scheme must be https (got http:)',
      });
    } finally {
      await httpsOnly.close();
    }
    expect(await sender.send({ ...attempt('/ok'), url: 'not a url' })).toMatchObject({
      outcome: 'failed',
      error: 'invalid endpoint URL',
    });
    expect(
      await sender.send({ ...attempt('/ok'), url: `ftp://127.0.0.1:${port}/ok` }),
    ).toMatchObject({
      outcome: 'failed',
    });
    expect(
      await sender.send({ ...attempt('/ok'), url: `http://user:pw@127.0.0.1:${port}/ok` }),
    ).toMatchObject({
      outcome: 'failed',
      error: 'endpoint URL must not contain credentials',
    });
    const badSecret = 'whsec_not*base64!';
    const result = await sender.send({ ...attempt('/ok'), secret: badSecret });
    expect(result).toMatchObject({ outcome: 'failed', error: 'invalid signing secret' });
    expect(JSON.stringify(result)).not.toContain('not*base64');
    expect(received).toHaveLength(0);
  });

  it('keeps the start of the response body as text, and null when no response arrived', async () => {
    expect((await sender.send(attempt('/ok'))).responseBodyExcerpt).toBe('thanks');
    expect((await sender.send(attempt('/error'))).responseBodyExcerpt).toBe(
      'boom: internal details',
    );
    expect((await sender.send(attempt('/accepted'))).responseBodyExcerpt).toBe('');
    expect((await sender.send(attempt('/hang'))).responseBodyExcerpt).toBeNull();
    // what arrived before the deadline
    expect((await sender.send(attempt('/slow-body'))).responseBodyExcerpt).toBe('partial');
  });

  it('keeps 1 KiB of a large body, never half a character, never U+0000', async () => {
    const multibyte = (await sender.send(attempt('/multibyte'))).responseBodyExcerpt!;
    // 'a' and 511 × 'é' are 1023 bytes; the next 'é' would cross the limit and is left out
    expect(multibyte).toBe(`a${'é'.repeat(511)}`);
    // a megabyte of zero bytes: PostgreSQL text refuses U+0000, so they are replaced
    const zeros = (await sender.send(attempt('/big'))).responseBodyExcerpt!;
    expect(zeros).toBe('\uFFFD'.repeat(RESPONSE_EXCERPT_BYTES));
  });

  it('stops reading a body that never ends well before the deadline', async () => {
    const patient = new WebhookSender({
      timeoutMs: 5_000,
      allowPrivateNetworks: true,
      allowHttp: true,
    });
    try {
      const result = await patient.send(attempt('/endless'));
      expect(result).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
      expect(result.responseBodyExcerpt).toBe('x'.repeat(RESPONSE_EXCERPT_BYTES));
      // the connection is dropped once the drain limit is passed, not at the 5 s deadline
      expect(result.durationMs).toBeLessThan(2_500);
      await waitUntil(() => endless.closed);
    } finally {
      await patient.close();
    }
  });

  it('never puts the secret in a result', async () => {
    for (const path of ['/ok', '/error', '/redirect', '/gone', '/limited']) {
      expectNoSecret(await sender.send(attempt(path)));
    }
  });
});

async function waitUntil(probe: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('excerptText', () => {
  it('is a prefix of the text, cut at a character boundary within the byte limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 700 }), (text) => {
        const bytes = Buffer.from(text, 'utf8');
        const excerpt = excerptText(bytes.subarray(0, RESPONSE_EXCERPT_BYTES));
        const expected = text.replaceAll('\u0000', '\uFFFD');
        expect(expected.startsWith(excerpt)).toBe(true);
        const length = Buffer.byteLength(excerpt, 'utf8');
        expect(length).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES);
        // only a character cut by the limit is left out: at most 3 of its bytes
        if (bytes.length >= RESPONSE_EXCERPT_BYTES) {
          expect(length).toBeGreaterThan(RESPONSE_EXCERPT_BYTES - 4);
        } else {
          expect(excerpt).toBe(expected);
        }
        // valid UTF-8 without U+0000: what a PostgreSQL text column stores
        expect(Buffer.from(excerpt, 'utf8').toString('utf8')).toBe(excerpt);
        expect(excerpt).not.toContain('\u0000');
      }),
    );
  });

  it('replaces invalid sequences instead of failing', () => {
    expect(excerptText(Buffer.from([0x61, 0xff, 0x62]))).toBe('a\uFFFDb');
  });
});

describe('WebhookSender (SSRF protection)', () => {
  let sender: WebhookSender;
  let attempted: string[];

  beforeEach(() => {
    // the refusal needs a DNS look-up of `localhost`: 100 ms timed out on a loaded CI host
    sender = new WebhookSender({ timeoutMs: 2_000, allowPrivateNetworks: false, allowHttp: true });
    // Tripwire: should the guard ever break, throw instead of sending a packet off this machine.
    attempted = [];
    const realConnect = net.connect.bind(net) as (options: net.NetConnectOpts) => net.Socket;
    jest.spyOn(net, 'connect').mockImplementation(((options: net.NetConnectOpts) => {
      const host = (options as net.TcpNetConnectOpts).host ?? '';
      attempted.push(host);
      if (host !== 'localhost') throw new Error(`tripwire: refusing to connect to ${host}`);
      return realConnect(options);
    }) as typeof net.connect);
    jest.spyOn(tls, 'connect').mockImplementation(() => {
      attempted.push('tls');
      throw new Error('tripwire: no TLS in this test');
    });
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await sender.close();
  });

  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port}/ok`],
    ['10.0.0.1', () => 'http://10.0.0.1/hook'],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['[::1]', () => `http://[::1]:${port}/ok`],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${port}/ok`],
    ['2130706433 (127.0.0.1 as an integer)', () => `http://2130706433:${port}/ok`],
    ['https 10.0.0.1', () => 'https://10.0.0.1/hook'],
  ])('refuses %s before connecting', async (_label, url) => {
    const result = await sender.send({ ...attempt('/ok'), url: url() });
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: DESTINATION_UNAVAILABLE_MESSAGE,
      retryAfterMs: null,
    });
    expect(attempted).toEqual([]);
    expect(received).toHaveLength(0);
    expect(connections).toBe(0);
  });

  it('refuses a hostname resolving to loopback (localhost) before connecting', async () => {
    const result = await sender.send({ ...attempt('/ok'), url: `http://localhost:${port}/ok` });
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: DESTINATION_UNAVAILABLE_MESSAGE,
    });
    // The socket was created, but the lookup refused before any connect.
    expect(attempted).toEqual(['localhost']);
    expect(received).toHaveLength(0);
    expect(connections).toBe(0);
  });
});

describe('WebhookSender (what last_error tells the webhook owner)', () => {
  // an internal DNS: one name resolves to a private address, the other to nothing
  const resolve: Resolver = (hostname, _options, callback) => {
    if (hostname === 'vault.internal.example') {
      callback(null, [{ address: '10.1.2.3', family: 4 }]);
      return;
    }
    const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    notFound.code = 'ENOTFOUND';
    callback(notFound, []);
  };
  let sender: WebhookSender;
  beforeEach(() => {
    sender = new WebhookSender({
      timeoutMs: 1_000,
      allowPrivateNetworks: false,
      allowHttp: true,
      resolve,
    });
  });
  afterEach(async () => {
    await sender.close();
  });

  it('answers a name that does not resolve and one that resolves to a private address alike', async () => {
    const internal = await sender.send({
      ...attempt('/ok'),
      url: 'https://vault.internal.example/',
    });
    const missing = await sender.send({ ...attempt('/ok'), url: 'https://nope.internal.example/' });
    const literal = await sender.send({ ...attempt('/ok'), url: 'https://10.1.2.3/' });
    const shown = (r: AttemptResult) => ({
      outcome: r.outcome,
      status: r.statusCode,
      error: r.error,
    });
    expect(shown(internal)).toEqual({
      outcome: 'failed',
      status: null,
      error: DESTINATION_UNAVAILABLE_MESSAGE,
    });
    expect(shown(missing)).toEqual(shown(internal));
    expect(shown(literal)).toEqual(shown(internal));
    // the difference is for the server log only
    expect(internal.logDetail).toMatch(/SSRF policy/);
    expect(missing.logDetail).toBe('DNS lookup failed (ENOTFOUND)');
  });
});
