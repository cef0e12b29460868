import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';

interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after the answer. */
  closed: boolean;
}

/**
 * Writes `bytes` on a fresh connection and reads the first response: resolved once its body is
 * in (and the server's close, if it closes, seen), or when the connection closes.
 */
function exchange(baseUrl: string, bytes: string): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes, 'latin1'));
    let received = '';
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      // interim answers (100 Continue) are not the answer
      const text = received.replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) {
        if (closed) reject(new Error(`closed without an answer: ${JSON.stringify(received)}`));
        return;
      }
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      const body = text.slice(end + 4, end + 4 + length);
      if (!closed && (body.length < length || headers['connection'] === 'close')) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body, closed });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer in time: ${JSON.stringify(received)}`));
    }, 10_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
  });
}

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
