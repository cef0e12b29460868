import type { Server } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { until } from './support/until.js';

const MAX = 3;

/** A connection that sends half a request head and then nothing (a slow client, or a trickle). */
function trickle(baseUrl: string): Promise<net.Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write('GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\n');
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** What a new connection gets: closed by the server with no byte sent, or still open. */
function fate(baseUrl: string, request: string): Promise<{ closed: boolean; received: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, received });
    }, 1500);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    // a dropped connection may be reset rather than ended, depending on what was in flight
    const closed = (): void => {
      clearTimeout(timer);
      resolve({ closed: true, received });
    };
    socket.on('close', closed);
    socket.on('error', () => undefined);
  });
}

describe('MAX_CONNECTIONS: connections past the cap are closed when accepted', () => {
  let t: TestApp;
  let caller: TestCaller;
  const held: net.Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({ MAX_CONNECTIONS: String(MAX) });
    caller = await createCaller(t.app);
  });

  /** Waits until the server holds `n` connections. */
  async function connectionsAre(n: number): Promise<void> {
    const server = t.app.getHttpServer() as Server;
    const count = () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((err, c) => (err ? reject(err) : resolve(c))),
      );
    const deadline = Date.now() + 5000;
    while ((await count()) !== n) {
      if (Date.now() > deadline) throw new Error(`the server never held ${n} connections`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await t?.close();
  });

  it('drops a connection past the cap unread, logs it, and serves again once one is free', async () => {
    const request = `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${caller.auth}\r\nConnection: close\r\n\r\n`;
    // under the cap a request is answered
    expect((await fate(t.baseUrl, request)).received).toMatch(/^HTTP\/1\.1 200 /);

    // the server, not only this side, has let the first connection go before the cap is filled
    await connectionsAre(0);
    for (let i = 0; i < MAX; i++) held.push(await trickle(t.baseUrl));
    await connectionsAre(MAX);
    const dropped = await fate(t.baseUrl, request);
    expect(dropped).toEqual({ closed: true, received: '' });
    const logged = await until('the drop is logged', () =>
      t.logs.find((line) => line.includes('MAX_CONNECTIONS reached')),
    );
    const line = JSON.parse(logged) as {
      dropped: number;
      max_connections: number;
    };
    expect(line).toMatchObject({ dropped: 1, max_connections: MAX });

    // one held connection closes: the next caller is served (once the server has seen the close)
    held.pop()!.destroy();
    let served = await fate(t.baseUrl, request);
    for (let i = 0; i < 20 && served.received === ''; i++) served = await fate(t.baseUrl, request);
    expect(served.received).toMatch(/^HTTP\/1\.1 200 /);
    const res = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
    expect(res.status).toBe(200);
  });
});

describe('MAX_CONNECTIONS: idle keep-alive connections make room', () => {
  let t: TestApp;
  let caller: TestCaller;
  const idle: net.Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({ MAX_CONNECTIONS: String(MAX) });
    caller = await createCaller(t.app);
  });

  afterAll(async () => {
    for (const socket of idle) socket.destroy();
    await t?.close();
  });

  /** A connection that made one request, got its answer, and stays open between requests. */
  function keptAlive(): Promise<{ socket: net.Socket; closed: Promise<void> }> {
    const { hostname, port } = new URL(t.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () =>
        socket.write(
          `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${caller.auth}\r\n\r\n`,
        ),
      );
      const closed = new Promise<void>((done) => socket.once('close', () => done()));
      socket.once('data', () => resolve({ socket, closed }));
      socket.on('error', reject);
    });
  }

  it('closes the idle connections when one is dropped, so the next caller is served', async () => {
    const kept = [];
    for (let i = 0; i < MAX; i++) kept.push(await keptAlive());
    idle.push(...kept.map((k) => k.socket));
    const request = `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${caller.auth}\r\nConnection: close\r\n\r\n`;
    expect(await fate(t.baseUrl, request)).toEqual({ closed: true, received: '' });
    // the server closed every idle one
    await Promise.all(kept.map((k) => k.closed));
    expect((await fate(t.baseUrl, request)).received).toMatch(/^HTTP\/1\.1 200 /);
  });
});

/** A raw connection from `localAddress` (the whole of 127/8 is loopback on Linux). */
interface Raw {
  socket: net.Socket;
  /** The client's port, which the server sees as the connection's remote port. */
  port: number;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server has ended (or reset) the connection. */
  ended: Promise<void>;
}

function connectFrom(baseUrl: string, localAddress: string): Promise<Raw> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // half-open allowed: the client never closes its side on its own, as a hostile one would not
    const socket = net.connect({
      port: Number(port),
      host: hostname,
      localAddress,
      allowHalfOpen: true,
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    const ended = new Promise<void>((done) => {
      socket.once('end', () => done());
      socket.once('close', () => done());
    });
    socket.on('error', () => undefined);
    socket.once('connect', () =>
      resolve({ socket, port: socket.localPort!, received: () => text, ended }),
    );
    socket.once('error', reject);
  });
}

/** `promise`, or a failure naming `what` after 10 s. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting until ${what}`)), 10_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The problem body of a raw HTTP/1.1 response. */
function problemOf(response: string): { code?: string; status?: number } {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { code?: string };
}

describe('Connections: head timeout, per-address cap, body rate, refused uploads', () => {
  let t: TestApp;
  let caller: TestCaller;
  const opened: net.Socket[] = [];
  const serverSockets: net.Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      HEADERS_TIMEOUT_MS: '1000',
      MAX_CONNECTIONS_PER_ADDRESS: '3',
      BODY_RATE_WINDOW_MS: '500',
      BODY_MIN_BYTES_PER_WINDOW: '100',
      // a proxy: its connections are not capped per address
      TRUST_PROXY: '127.0.0.3',
    });
    caller = await createCaller(t.app);
    (t.app.getHttpServer() as Server).on('connection', (s: net.Socket) => serverSockets.push(s));
  });

  afterAll(async () => {
    for (const socket of opened) socket.destroy();
    await t?.close();
  });

  async function open(localAddress: string): Promise<Raw> {
    const raw = await connectFrom(t.baseUrl, localAddress);
    opened.push(raw.socket);
    return raw;
  }

  /** The server's side of a raw connection. */
  function serverSideOf(raw: Raw): net.Socket | undefined {
    return serverSockets.find((s) => s.remotePort === raw.port);
  }

  /** Waits until the server has closed its side of `raw` altogether (not only half-closed it). */
  async function closedByServer(raw: Raw): Promise<void> {
    await until('the server closes the connection', () => serverSideOf(raw)?.destroyed);
  }

  /** Waits until the server holds no connection from `localAddress`. */
  async function noneOpenFrom(localAddress: string): Promise<void> {
    await until(`the server holds no connection from ${localAddress}`, () =>
      serverSockets.every((s) => s.destroyed || s.remoteAddress?.endsWith(localAddress) !== true),
    );
  }

  it('answers a head that does not arrive in HEADERS_TIMEOUT_MS 408 and closes its connection', async () => {
    const idle = await open('127.0.0.4');
    const trickling = await open('127.0.0.4');
    trickling.socket.write('GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\n');
    // a header line every 200 ms: the head never ends
    const trickle = setInterval(() => trickling.socket.write('X-Slow: 1\r\n'), 200);
    try {
      for (const raw of [idle, trickling]) {
        await within('the server answers', raw.ended);
        // the client never closes its side: the server closes the connection all the same
        await closedByServer(raw);
        expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
        expect(problemOf(raw.received())).toMatchObject({ status: 408, code: 'request_timeout' });
      }
    } finally {
      clearInterval(trickle);
    }
    await noneOpenFrom('127.0.0.4');
  });

  it('closes connections past MAX_CONNECTIONS_PER_ADDRESS when accepted; other addresses are served', async () => {
    const held = [];
    for (let i = 0; i < 3; i++) {
      const raw = await open('127.0.0.2');
      raw.socket.write('GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\n');
      held.push(raw);
    }
    const dropped = await open('127.0.0.2');
    await within('the server closes it', dropped.ended);
    expect(dropped.received()).toBe('');
    await closedByServer(dropped);
    const logged = await until('the drop is logged', () =>
      t.logs.find((line) => line.includes('MAX_CONNECTIONS_PER_ADDRESS reached')),
    );
    expect(JSON.parse(logged)).toMatchObject({
      dropped: 1,
      max_connections_per_address: 3,
      address: '127.0.0.2',
    });
    // another address is served, and the proxy TRUST_PROXY names is not capped
    const other = await open('127.0.0.1');
    other.socket.write(
      `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${caller.auth}\r\nConnection: close\r\n\r\n`,
    );
    await within('the server answers', other.ended);
    expect(other.received()).toMatch(/^HTTP\/1\.1 200 /);
    const proxied = [];
    for (let i = 0; i < 4; i++) proxied.push(await open('127.0.0.3'));
    const last = proxied.at(-1)!;
    last.socket.write(
      `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${caller.auth}\r\nConnection: close\r\n\r\n`,
    );
    await within('the server answers', last.ended);
    expect(last.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const raw of [...held, ...proxied]) raw.socket.destroy();
    await noneOpenFrom('127.0.0.2');
  });

  it('cuts a body slower than BODY_MIN_BYTES_PER_WINDOW with 408 and closes the connection', async () => {
    const slow = await open('127.0.0.5');
    slow.socket.write(
      `POST /api/v1/webhooks HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${caller.auth}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    // a byte every 100 ms: 5 in a window, under the 100 asked for
    const trickle = setInterval(() => slow.socket.write(' '), 100);
    try {
      await within('the server answers', slow.ended);
      await closedByServer(slow);
    } finally {
      clearInterval(trickle);
    }
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(problemOf(slow.received())).toMatchObject({ status: 408, code: 'request_timeout' });
    await noneOpenFrom('127.0.0.5');
  });

  it('answers a refused upload 401 and reads no more of its body than the close needs', async () => {
    const upload = await open('127.0.0.6');
    const size = 50 * 1024 * 1024;
    upload.socket.write(
      'POST /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${size}\r\n\r\n`,
    );
    // as fast as the connection takes it, until the server stops reading or closes
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    const pump = (): void => {
      while (written < size && !upload.socket.destroyed) {
        written += chunk.length;
        if (!upload.socket.write(chunk)) return void upload.socket.once('drain', pump);
      }
    };
    pump();
    await within('the server answers', upload.ended);
    await closedByServer(upload);
    expect(upload.received()).toMatch(/^HTTP\/1\.1 401 /);
    // the head, what the close reads (64 KiB) and what Node's buffers took before it paused
    expect(serverSideOf(upload)!.bytesRead).toBeLessThan(1024 * 1024);
  });
});
