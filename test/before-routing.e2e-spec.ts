import type { Server } from 'node:http';
import * as net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { type Answer, exchange } from './support/raw-exchange.js';
import { until } from './support/until.js';

const head = (lines: string[]): string => `${lines.join('\r\n')}\r\n\r\n`;

/** A problem body whose `request_id` is the `X-Request-Id` header's. */
function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  const requestId = answer.headers['x-request-id'];
  expect(requestId).toBeTruthy();
  expect(JSON.parse(answer.body)).toMatchObject({ status, code, request_id: requestId });
}

/**
 * What Node answers itself before routing (no `Host`, an unknown `Expect`) is answered as every
 * other error: problem details with `X-Request-Id`. Runs on the adapter `HTTP_ADAPTER` names.
 */
describe('answers before routing', () => {
  let t: TestApp;
  let caller: TestCaller;

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app);
  });
  afterAll(async () => t?.close());

  it('refuses an HTTP/1.1 request without Host with a 400 problem, and closes', async () => {
    for (const bytes of [
      head(['GET /api/v1/projects HTTP/1.1', `Authorization: ${caller.auth}`]),
      head(['GET /health/live HTTP/1.1', 'X-Request-Id: no-host-1']),
      head(['POST /api/v1/webhooks HTTP/1.1', 'Content-Length: 2']) + '{}',
      head(['GET http://localhost/health/live HTTP/1.1']),
    ]) {
      const answer = await exchange(t.baseUrl, bytes);
      expectProblem(answer, 400, 'malformed_request');
      expect(JSON.parse(answer.body).detail).toBe('an HTTP/1.1 request must send a Host header');
      expect(answer.closed).toBe(true);
    }
    // the caller's id is kept, as on any answer
    const named = await exchange(
      t.baseUrl,
      head(['GET /health/live HTTP/1.1', 'X-Request-Id: no-host-2']),
    );
    expect(named.headers['x-request-id']).toBe('no-host-2');
    // HTTP/1.0 has no Host requirement; an empty Host is a Host
    const old = await exchange(t.baseUrl, head(['GET /health/live HTTP/1.0']));
    expect(old.status).toBe(200);
    const empty = await exchange(t.baseUrl, head(['GET /health/live HTTP/1.1', 'Host:']));
    expect(empty.status).toBe(200);
  });

  it('answers an expectation other than 100-continue with a 417 problem', async () => {
    for (const expectation of ['foo', '200-ok', '101-continue']) {
      const answer = await exchange(
        t.baseUrl,
        head([
          'POST /api/v1/webhooks HTTP/1.1',
          'Host: localhost',
          `Expect: ${expectation}`,
          'X-Request-Id: expect-1',
          'Content-Type: application/json',
          'Content-Length: 2',
        ]) + '{}',
      );
      expectProblem(answer, 417, 'expectation_failed');
      expect(answer.headers['x-request-id']).toBe('expect-1');
      // the body was never read: nothing after it on the connection
      expect(answer.closed).toBe(true);
    }
    // without a body the connection is kept
    const bodyless = await exchange(
      t.baseUrl,
      head(['GET /health/live HTTP/1.1', 'Host: localhost', 'Expect: foo']),
    );
    expectProblem(bodyless, 417, 'expectation_failed');
    expect(bodyless.closed).toBe(false);
    // a missing Host comes first, as in Node's own order
    const hostless = await exchange(t.baseUrl, head(['GET /health/live HTTP/1.1', 'Expect: foo']));
    expectProblem(hostless, 400, 'malformed_request');
    // 100-continue is still met
    const continued = await exchange(
      t.baseUrl,
      head(['GET /health/live HTTP/1.1', 'Host: localhost', 'Expect: 100-continue']),
    );
    expect(continued.status).toBe(200);
  });

  it('answers CONNECT, which Node routes nowhere, with a 400 problem, and closes', async () => {
    for (const target of ['localhost:443', '/api/v1/projects']) {
      const answer = await exchange(
        t.baseUrl,
        head([`CONNECT ${target} HTTP/1.1`, 'Host: localhost:443', 'X-Request-Id: connect-1']),
      );
      expectProblem(answer, 400, 'malformed_request');
      expect(answer.headers['x-request-id']).toBe('connect-1');
      expect(answer.closed).toBe(true);
    }
  });

  it('closes a CONNECT connection whose client never closes its side', async () => {
    const server = t.app.getHttpServer() as Server;
    const accepted = new Promise<net.Socket>((done) => server.once('connection', done));
    const { hostname, port } = new URL(t.baseUrl);
    // half-open allowed: the client keeps its side open after the answer, as a hostile one would
    const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (received += c));
    const serverSide = await accepted;
    socket.write(head(['CONNECT localhost:443 HTTP/1.1', 'Host: localhost:443']));
    try {
      await until('the server closes the CONNECT connection', () => serverSide.destroyed);
      expect(received).toMatch(/^HTTP\/1\.1 400 /);
    } finally {
      socket.destroy();
    }
  });

  it('answers a request line the parser refuses with a 400 problem', async () => {
    for (const bytes of [
      head(['FOOBAR /api/v1/projects HTTP/1.1', 'Host: localhost']),
      head(['GET /api/v1/projects HTTP/9.9', 'Host: localhost']),
    ]) {
      const answer = await exchange(t.baseUrl, bytes);
      expectProblem(answer, 400, 'malformed_request');
      expect(answer.closed).toBe(true);
    }
  });
});
