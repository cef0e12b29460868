import { METHODS } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { type Answer, exchange as rawExchange } from './support/raw-exchange.js';
import { rememberSecretsIn } from './support/secrets.js';

/** Headers that depend on the clock, not on the server: each is checked to be there, not equal. */
const VOLATILE = new Set(['date', 'x-ratelimit-reset-api']);

interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Probe {
  name: string;
  method: string;
  path: string;
  auth?: boolean;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * Express (the default) and Fastify (`HTTP_ADAPTER=fastify`) under the same application, on one
 * database: every probe gets the same status, headers (names lower-cased; only the values of
 * clock-dependent ones may differ) and body bytes from both. The request id is fixed by the caller so bodies can be equal.
 */
describe('HTTP adapters answer alike', () => {
  let express: TestApp;
  let fastify: TestApp;
  let caller: TestCaller;

  beforeAll(async () => {
    express = await startTestApp({ HTTP_ADAPTER: 'express' });
    fastify = await startTestApp({ HTTP_ADAPTER: 'fastify' }, express.database);
    caller = await createCaller(express.app);
  });
  afterAll(async () => {
    await fastify?.close();
    await express?.close();
  });

  async function exchange(app: TestApp, probe: Probe): Promise<Exchange> {
    const headers: Record<string, string> = { 'x-request-id': 'parity-1', ...probe.headers };
    if (probe.auth) headers.authorization = caller.auth;
    const res = await fetch(`${app.baseUrl}${probe.path}`, {
      method: probe.method,
      headers,
      body: probe.body,
    });
    const body = await res.text();
    rememberSecretsIn(body);
    const answered: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      answered[name] = VOLATILE.has(name) ? typeof value : value;
    });
    return { status: res.status, headers: answered, body };
  }

  const json = { 'content-type': 'application/json' };
  const webhook = JSON.stringify({
    name: 'parity',
    endpoint_url: 'https://hooks.example.com/parity',
    events: ['*'],
  });
  const probes: Probe[] = [
    { name: 'an unknown route without a token', method: 'GET', path: '/api/v1/nope' },
    { name: 'an unknown route with a token', method: 'GET', path: '/api/v1/nope', auth: true },
    { name: 'the API root with a token', method: 'GET', path: '/api/v1', auth: true },
    { name: 'a path outside the API', method: 'GET', path: '/nope' },
    { name: 'another letter case', method: 'GET', path: '/API/V1/projects', auth: true },
    { name: 'a list', method: 'GET', path: '/api/v1/projects', auth: true },
    { name: 'a trailing slash', method: 'GET', path: '/api/v1/projects/', auth: true },
    { name: 'HEAD of a list', method: 'HEAD', path: '/api/v1/projects', auth: true },
    // lists whose JSON text PostgreSQL writes and the platform sends as is (JsonText)
    { name: 'a cursor-paged list', method: 'GET', path: '/api/v1/webhooks', auth: true },
    { name: 'HEAD of a cursor-paged list', method: 'HEAD', path: '/api/v1/webhooks', auth: true },
    { name: 'a newest-first list', method: 'GET', path: '/api/v1/webhook-deliveries', auth: true },
    { name: 'a bad query', method: 'GET', path: '/api/v1/projects?limit=abc', auth: true },
    { name: 'an undecodable id', method: 'GET', path: '/api/v1/projects/%zz', auth: true },
    { name: 'an id that is no number', method: 'GET', path: '/api/v1/projects/abc', auth: true },
    { name: 'a missing project', method: 'GET', path: '/api/v1/projects/999999', auth: true },
    { name: 'a method no route has', method: 'DELETE', path: '/api/v1/projects', auth: true },
    { name: 'liveness', method: 'GET', path: '/health/live' },
    {
      name: 'malformed JSON',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: json,
      body: '{"name": ',
    },
    {
      name: 'a top-level JSON string',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: json,
      body: '"x"',
    },
    {
      name: 'a charset other than UTF-8',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: { 'content-type': 'application/json; charset=latin1' },
      body: webhook,
    },
    {
      name: 'an unknown content encoding',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: { ...json, 'content-encoding': 'zstd' },
      body: webhook,
    },
    {
      name: 'a gzip body that expands past BODY_LIMIT',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: { ...json, 'content-encoding': 'gzip' },
      body: gzipSync(`{"name":"${' '.repeat(6 * 1024 * 1024)}"}`),
    },
    {
      name: 'a body of another media type',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: { 'content-type': 'text/plain' },
      body: webhook,
    },
    {
      name: 'a body that fails validation',
      method: 'POST',
      path: '/api/v1/webhooks',
      auth: true,
      headers: json,
      body: '{"name":"x","endpoint_url":"not a url","events":[]}',
    },
    {
      name: 'malformed JSON to the token endpoint with a trailing slash',
      method: 'POST',
      path: '/api/v1/oauth/token/',
      headers: json,
      body: '{bad',
    },
    {
      name: 'a token request with an unknown client',
      method: 'POST',
      path: '/api/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=gci_nobody&client_secret=gcs_nothing',
    },
    {
      name: 'a token request with no grant type',
      method: 'POST',
      path: '/api/v1/oauth/token',
      headers: json,
      body: '{}',
    },
  ];

  it.each(probes.map((p) => [p.name, p] as const))('%s', async (_name, probe) => {
    const fromExpress = await exchange(express, probe);
    const fromFastify = await exchange(fastify, probe);
    expect(fromFastify).toEqual(fromExpress);
    // the probes are meant to exercise refusals as much as answers
    expect(fromExpress.status).toBeGreaterThanOrEqual(200);
  });

  /** An answer read off the socket, with what differs by clock or chance made equal. */
  function comparable(answer: Answer): Answer {
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      headers[name] = VOLATILE.has(name) ? typeof value : value.replace(uuid, '<uuid>');
    }
    return { ...answer, headers, body: answer.body.replace(uuid, '<uuid>') };
  }

  // every method Node parses (CONNECT aside: Node never routes it) and one it does not
  const anyMethod = [...METHODS.filter((m) => m !== 'CONNECT'), 'FOOBAR'];
  const somePaths = ['/api/v1/projects', '/api/v1/nope', '/health/live', '/nope'];

  it('answers any method alike, on known and unknown paths, with a token or not', async () => {
    for (const method of anyMethod) {
      for (const path of somePaths) {
        for (const auth of [false, true]) {
          for (const body of [false, true]) {
            const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'X-Request-Id: p-1'];
            if (auth) lines.push(`Authorization: ${caller.auth}`);
            if (body) lines.push('Content-Type: application/json', 'Content-Length: 2');
            const bytes = `${lines.join('\r\n')}\r\n\r\n${body ? '{}' : ''}`;
            const fromExpress = comparable(await rawExchange(express.baseUrl, bytes));
            const fromFastify = comparable(await rawExchange(fastify.baseUrl, bytes));
            withMessage(`${method} ${path} token: ${auth}, body: ${body}`, () =>
              expect(fromFastify).toEqual(fromExpress),
            );
          }
        }
      }
    }
  });

  it('answers alike what Node would answer before routing', async () => {
    const heads = [
      ['GET /api/v1/projects HTTP/1.1'],
      ['POST /api/v1/webhooks HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 2'],
      ['GET /api/v1/projects HTTP/1.1', 'Host: localhost', 'Expect: foo'],
      ['POST /nope HTTP/1.1', 'Host: localhost', 'Expect: bar', 'Content-Length: 2'],
      ['QUERY /api/v1/projects HTTP/1.1', 'Host: localhost', 'Content-Length: 2'],
      ['GET /api/v1/projects HTTP/1.0'],
      ['CONNECT localhost:443 HTTP/1.1', 'Host: localhost:443'],
    ];
    for (const lines of heads) {
      const bytes = `${[...lines, 'X-Request-Id: p-2'].join('\r\n')}\r\n\r\n{}`;
      const fromExpress = comparable(await rawExchange(express.baseUrl, bytes));
      const fromFastify = comparable(await rawExchange(fastify.baseUrl, bytes));
      withMessage(lines.join(' | '), () => expect(fromFastify).toEqual(fromExpress));
    }
  });

  it('labels requests in metrics with the same route patterns', async () => {
    const series = async (app: TestApp): Promise<string[]> =>
      (await app.scrape()).text
        .split('\n')
        .filter((line) => line.startsWith('http_requests_total{'))
        .map((line) => line.replace(/\s+\d+$/, ''))
        .sort();
    const fromExpress = await series(express);
    // the probes above reached these routes; body refusals (400, 413) count for their route too
    expect(fromExpress).toEqual(
      expect.arrayContaining([
        'http_requests_total{method="GET",route="/api/v1/projects",status="200"}',
        'http_requests_total{method="POST",route="/api/v1/webhooks",status="400"}',
        'http_requests_total{method="POST",route="/api/v1/webhooks",status="413"}',
        'http_requests_total{method="POST",route="/api/v1/oauth/token",status="400"}',
      ]),
    );
    expect(await series(fastify)).toEqual(fromExpress);
  });
});
