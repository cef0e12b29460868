import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { createDocument, createProject } from './support/read-factories.js';

/** What the server sends on a connection until it has sent `until` (or closes, or 15 s pass). */
function exchange(
  baseUrl: string,
  head: string,
  opts: { body?: string; until?: RegExp } = {},
): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let received = '';
    let sentBody = false;
    const socket = net.connect(Number(port), hostname, () => socket.write(head));
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(done, 15_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      // the body goes only once the server asked for it, as a client that waits does
      if (
        opts.body !== undefined &&
        !sentBody &&
        received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')
      ) {
        sentBody = true;
        socket.write(opts.body);
      }
      if (opts.until?.test(received)) done();
    });
    socket.on('close', done);
    socket.on('error', () => undefined);
  });
}

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): the server invites the body only once it would read
 * it (docs/operators/security.md: no body byte for a request without a valid credential).
 */
describe('Expect: 100-continue', () => {
  let t: TestApp;
  let caller: TestCaller;
  let path: string;

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app);
    const projectId = await createProject(t.app, caller.tenantId);
    const { documentId } = await createDocument(t.app, caller.tenantId, projectId);
    path = `/api/v1/documents/${documentId}/external-revisions`;
  });
  afterAll(async () => {
    await t?.close();
  });

  const body = '{"content":{"a":1}}';
  const head = (auth: string | null, length = body.length, expectation = '100-continue') =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${length}\r\nExpect: ${expectation}\r\n` +
    (auth ? `Authorization: ${auth}\r\n` : '') +
    '\r\n';

  it('answers a caller without a valid credential 401 at once, never 100 Continue', async () => {
    for (const auth of [null, 'Bearer gat_' + 'A'.repeat(49), 'Basic dXNlcjpwYXNz']) {
      const received = await exchange(t.baseUrl, head(auth), { until: /\r\n\r\n[\s\S]*\}$/ });
      expect(received).toMatch(/^HTTP\/1\.1 401 /);
      expect(received).not.toContain('100 Continue');
    }
  });

  it('invites an admitted body with 100 Continue, then answers it', async () => {
    // any letter case, as Node itself recognises the expectation
    for (const expectation of ['100-continue', '100-Continue']) {
      const received = await exchange(t.baseUrl, head(caller.auth, body.length, expectation), {
        body,
        until: /HTTP\/1\.1 201 [\s\S]*\r\n\r\n[\s\S]*\}$/,
      });
      expect(received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    }
  });

  it('keeps the connection of a bodyless request that expects 100 Continue', async () => {
    const received = await exchange(
      t.baseUrl,
      `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n` +
        `Authorization: ${caller.auth}\r\n\r\n`,
      { until: /HTTP\/1\.1 200 [\s\S]*\r\n\r\n[\s\S]*\}$/ },
    );
    expect(received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(received).not.toMatch(/\r\nconnection: close\r\n/i);
  });

  it('answers a declared length past the limit 413 without inviting it', async () => {
    const received = await exchange(t.baseUrl, head(caller.auth, t.config.BODY_LIMIT + 1), {
      until: /\r\n\r\n[\s\S]*\}$/,
    });
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
  });
});
