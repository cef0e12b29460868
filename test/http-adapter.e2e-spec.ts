import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createLockableDocument } from './support/lock-factories.js';

/**
 * What the HTTP layer (Fastify, src/common/http/http-adapter.ts and body-parsers.ts) promises
 * callers: the JSON and form bodies the routes read, tolerant routing, request ids, and problem
 * bodies for what is refused before any route runs.
 */
describe('HTTP layer', () => {
  let t: TestApp;
  let c: TestCaller;

  beforeAll(async () => {
    t = await startTestApp();
    c = await createCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('JSON bodies', () => {
    /** POST /webhooks with a body sent exactly as given. */
    const postRaw = (rawBody: string, contentType: string) =>
      call(t.baseUrl, 'POST', '/webhooks', {
        auth: c.auth,
        rawBody,
        headers: { 'content-type': contentType },
      });

    it('reads an empty body sent as JSON as {} (a checkout with no options)', async () => {
      const { documentId } = await createLockableDocument(t.app, c.tenantId);
      const res = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth: c.auth,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(201);
      expect(res.body.lock_token).toEqual(expect.any(String));
    });

    it.each([
      ['a string', '"just a string"'],
      ['a number', '42'],
      ['null', 'null'],
      ['malformed JSON', '{"name": '],
    ])('refuses %s at the top level with 400 validation_failed', async (_what, rawBody) => {
      const res = await postRaw(rawBody, 'application/json');
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'validation_failed', status: 400 });
    });

    // docs/operators/security.md: a charset other than UTF-8 is an unsupported media type
    it('refuses a charset other than UTF-8 with 415 unsupported_media_type', async () => {
      const res = await postRaw('{"name":"x"}', 'application/json; charset=latin1');
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({
        code: 'unsupported_media_type',
        detail: 'unsupported charset "LATIN1"',
      });
    });

    it('accepts an explicit UTF-8 charset', async () => {
      const json = JSON.stringify({
        name: 'charset ü',
        endpoint_url: 'https://hooks.example.com/charset',
        events: ['*'],
      });
      const res = await postRaw(json, 'application/json; charset=UTF-8');
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('charset ü');
    });

    // docs/operators/security.md: JSON routes take application/json only
    it('does not read a body of another content type: 415 unsupported_media_type', async () => {
      const res = await postRaw('{"name":"x"}', 'text/plain');
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
    });
  });

  describe('compressed bodies', () => {
    const post = (body: Buffer, encoding: string) =>
      fetch(`${t.baseUrl}/api/v1/webhooks`, {
        method: 'POST',
        headers: {
          authorization: c.auth,
          'content-type': 'application/json',
          'content-encoding': encoding,
        },
        body,
      });

    it('reads a gzip-compressed JSON body', async () => {
      const json = JSON.stringify({
        name: 'gzipped',
        endpoint_url: 'https://hooks.example.com/gzip',
        events: ['*'],
      });
      const res = await post(gzipSync(json), 'gzip');
      expect(res.status).toBe(201);
      expect(((await res.json()) as { name: string }).name).toBe('gzipped');
    });

    it('answers 413 to a body over BODY_LIMIT once decompressed, however small compressed', async () => {
      const bomb = gzipSync(`{"name":"${' '.repeat(t.config.BODY_LIMIT + 1)}"}`);
      expect(bomb.length).toBeLessThan(64 * 1024);
      const res = await post(bomb, 'gzip');
      expect(res.status).toBe(413);
      expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    });

    it('refuses an unknown content encoding (415) and gzip that is not gzip (400)', async () => {
      const unknown = await post(Buffer.from('{}'), 'compress');
      expect(unknown.status).toBe(415);
      expect(await unknown.json()).toMatchObject({
        code: 'unsupported_media_type',
        detail: 'unsupported content encoding "compress"',
      });
      const notGzip = await post(Buffer.from('{"name":"x"}'), 'gzip');
      expect(notGzip.status).toBe(400);
      expect(await notGzip.json()).toMatchObject({ code: 'validation_failed' });
    });
  });

  describe('routing', () => {
    it('ignores a trailing slash', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects/', { auth: c.auth });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expect.any(Array));
    });

    it('answers the token endpoint in RFC 6749 shape with a trailing slash too', async () => {
      const res = await call(t.baseUrl, 'POST', '/oauth/token/', {
        rawBody: '{"grant_type": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    });

    it('validates an id of any length (400), never a router 404', async () => {
      const res = await call(t.baseUrl, 'GET', `/documents/${'9'.repeat(300)}`, { auth: c.auth });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });

    it('answers a path that is not valid percent-encoding with a 400 problem and its request id', async () => {
      const res = await call(t.baseUrl, 'GET', '/documents/%E0%A4%A', { auth: c.auth });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'malformed_request', status: 400 });
      expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
    });
  });

  describe('request ids', () => {
    it('mints a fresh id instead of echoing one unfit for logs and headers', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects', {
        auth: c.auth,
        headers: { 'x-request-id': 'two words' },
      });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const line = t.logs.find((l) => l.includes(`"id":"${id}"`));
      expect(line).toBeDefined();
    });

    it('logs every request exactly once, the routes outside /api/v1 included', async () => {
      const paths = ['/health/live', '/metrics', '/api/v1/projects'];
      for (const [i, path] of paths.entries()) {
        await fetch(`${t.baseUrl}${path}`, { headers: { 'x-request-id': `once-${i}` } });
      }
      await new Promise((r) => setTimeout(r, 50));
      const lines = paths.map(
        (_, i) => t.logs.filter((l) => l.includes(`"id":"once-${i}"`)).length,
      );
      expect(lines).toEqual([1, 1, 1]);
    });

    it('gives a refused request the same id in its header, its problem body and its log line', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects', {
        headers: { 'x-request-id': 'trace-401' },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-request-id')).toBe('trace-401');
      expect(res.body.request_id).toBe('trace-401');
      await new Promise((r) => setTimeout(r, 50));
      expect(t.logs.some((l) => l.includes('"id":"trace-401"'))).toBe(true);
    });
  });
});
