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
