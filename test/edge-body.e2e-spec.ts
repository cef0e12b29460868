import net from 'node:net';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mintToken } from '../src/common/crypto/tokens.js';
import { startTestApp, type TestApp } from './support/app.js';
import { basicAuth } from './support/auth-factories.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { bigBodyReads, bigBodyTurns } from '../src/common/http/request-body.js';
import { createDocument, createProject } from './support/read-factories.js';
import { until } from './support/until.js';
import { type ServiceProcess, startService } from './support/service-process.js';

/** What a raw exchange got back: the status line's code, the headers and the body text. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends a request head announcing a body of `contentLength` bytes (or chunked) and then nothing
 * (or `body` after `bodyAfterMs`): resolves with the answer, however much of the body was sent.
 */
function rawRequest(
  baseUrl: string,
  options: {
    method?: string;
    path: string;
    headers: Record<string, string>;
    body?: Buffer;
    bodyAfterMs?: number;
    /** Rejects if nothing was answered within this time. */
    timeoutMs?: number;
  },
): Promise<RawAnswer & { answeredBeforeBody: boolean }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let bodySent = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 5000} ms`));
    }, options.timeoutMs ?? 5000);
    const finish = (): void => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      const body = received.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      if (body.length < length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: Number(lines[0]!.split(' ')[1]),
        headers,
        body: body.subarray(0, length).toString('utf8'),
        answeredBeforeBody: !bodySent,
      });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      finish();
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const head =
      `${options.method ?? 'POST'} ${options.path} HTTP/1.1\r\nHost: ${hostname}\r\n` +
      Object.entries(options.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
      '\r\n';
    socket.write(head);
    const body = options.body;
    if (body) {
      setTimeout(() => {
        if (socket.destroyed) return;
        bodySent = true;
        socket.write(body);
      }, options.bodyAfterMs ?? 0);
    }
  });
}

const MIB = 1024 * 1024;

describe('request bodies at the edge (docs/operators/security.md)', () => {
  let t: TestApp;
  let caller: TestCaller;
  let reader: TestCaller;
  let documentId: number;
  const bodyRoutes: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT: '1mb' });
    caller = await createCaller(t.app);
    reader = await createCaller(t.app, {
      tenantId: caller.tenantId,
      scopes: ['projects:read', 'documents:read', 'webhooks:read'],
    });
    const projectId = await createProject(t.app, caller.tenantId);
    const doc = await createDocument(t.app, caller.tenantId, projectId);
    documentId = doc.documentId;
    bodyRoutes.push(
      '/api/v1/webhooks',
      `/api/v1/documents/${documentId}/external-revisions`,
      `/api/v1/documents/${documentId}/checkout`,
      '/api/v1/no-such-route',
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  async function webhookCount(): Promise<number> {
    const res = await call(t.baseUrl, 'GET', '/webhooks', { auth: caller.auth });
    return (res.body as { data: unknown[] }).data.length;
  }

  describe('authentication before the body (item 1)', () => {
    const forged = `Bearer ${mintToken('gat')}`;
    const credentials: Array<[string, Record<string, string>]> = [
      ['no Authorization', {}],
      ['another scheme', { authorization: 'Basic Zm9vOmJhcg==' }],
      ['a malformed bearer token', { authorization: 'Bearer not-a-token' }],
      ['a well-formed token nobody issued', { authorization: forged }],
    ];

    it.each(credentials)(
      'answers 401 with %s before one byte of a 5 MiB body arrives',
      async (_what, auth) => {
        for (const path of bodyRoutes) {
          const framings: Array<Record<string, string>> = [
            { 'content-length': String(5 * 1024 * 1024) },
            { 'transfer-encoding': 'chunked' },
          ];
          for (const framing of framings) {
            const answer = await rawRequest(t.baseUrl, {
              path,
              headers: {
                'content-type': 'application/json',
                'content-encoding': 'gzip',
                ...framing,
                ...auth,
              },
            });
            withMessage(`${path} ${JSON.stringify(framing)} → ${answer.status}`, () => {
              expect(answer.status).toBe(401);
              expect(answer.answeredBeforeBody).toBe(true);
              // the unread body makes the connection unusable for another request
              expect(answer.headers.connection).toBe('close');
              expect(JSON.parse(answer.body).code).toMatch(/^(unauthenticated|invalid_token)$/);
            });
          }
        }
      },
    );

    it('answers a framing the HTTP parser refuses with a 400 and no error in the log, also for a known caller', async () => {
      const framings: Array<Record<string, string>> = [
        { 'transfer-encoding': 'identity' },
        { 'transfer-encoding': 'gzip' },
        { 'transfer-encoding': 'chunked, gzip' },
      ];
      const before = t.logs.length;
      for (const path of bodyRoutes) {
        for (const framing of framings) {
          for (const auth of [{}, { authorization: caller.auth }] as Array<
            Record<string, string>
          >) {
            const answer = await rawRequest(t.baseUrl, {
              path,
              headers: { 'content-type': 'application/json', ...framing, ...auth },
              body: Buffer.from('{}'),
            });
            withMessage(
              `${path} ${JSON.stringify(framing)} → ${answer.status} ${answer.body}`,
              () => expect(answer.status).toBe(400),
            );
          }
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const errors = t.logs
        .slice(before)
        .flatMap((chunk) => chunk.split('\n'))
        .filter(
          (line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50,
        );
      expect(errors).toEqual([]);
    });

    it('waits for the body of a caller whose token is valid (the gate is the credential)', async () => {
      const body = Buffer.from(JSON.stringify({ name: 'late body', events: ['*'] }));
      const answer = await rawRequest(t.baseUrl, {
        path: '/api/v1/webhooks',
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          authorization: caller.auth,
        },
        body,
        bodyAfterMs: 300,
      });
      expect(answer.answeredBeforeBody).toBe(false);
      // read and validated: endpoint_url is missing
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'endpoint_url' })]),
      );
    });

    it('keeps the order of the checks with a body: malformed JSON is 401 without a token, 403 with a token lacking the scope, 400 with the scope', async () => {
      const rawBody = '{"name": ';
      const headers = { 'content-type': 'application/json' };
      const anonymous = await call(t.baseUrl, 'POST', '/webhooks', { rawBody, headers });
      expect(anonymous.status).toBe(401);
      const unscoped = await call(t.baseUrl, 'POST', '/webhooks', {
        rawBody,
        headers,
        auth: reader.auth,
      });
      expect(unscoped.status).toBe(403);
      expect(unscoped.body.code).toBe('insufficient_scope');
      const scoped = await call(t.baseUrl, 'POST', '/webhooks', {
        rawBody,
        headers,
        auth: caller.auth,
      });
      expect(scoped.status).toBe(400);
      // the same order for a body too large and one of another media type
      for (const [rawBody, contentType] of [
        ['x'.repeat(1024 * 1024 + 1), 'application/json'],
        ['name=x&events=*', 'application/x-www-form-urlencoded'],
      ] as const) {
        const res = await call(t.baseUrl, 'POST', '/webhooks', {
          rawBody,
          headers: { 'content-type': contentType },
          auth: reader.auth,
        });
        expect(res.status).toBe(403);
      }
    });

    it('answers 403 to a token lacking the scope before one byte of its body arrives, once the route has been met', async () => {
      const routes = [
        '/api/v1/webhooks',
        `/api/v1/documents/${documentId}/external-revisions`,
        `/api/v1/documents/${documentId}/checkout`,
      ];
      for (const path of routes) {
        // the route's first request, answered by the guard: it learns what the route needs
        const first = await call(t.baseUrl, 'POST', path.replace('/api/v1', ''), {
          auth: reader.auth,
          body: {},
        });
        expect(first.status).toBe(403);
        const framings: Array<Record<string, string>> = [
          { 'content-length': String(5 * MIB) },
          { 'transfer-encoding': 'chunked' },
        ];
        for (const framing of framings) {
          const answer = await rawRequest(t.baseUrl, {
            path,
            headers: { 'content-type': 'application/json', ...framing, authorization: reader.auth },
          });
          withMessage(
            `${path} ${JSON.stringify(framing)} → ${answer.status} ${answer.body}`,
            () => {
              expect(answer.status).toBe(403);
              expect(answer.answeredBeforeBody).toBe(true);
              expect(answer.headers.connection).toBe('close');
              expect(JSON.parse(answer.body).code).toBe('insufficient_scope');
            },
          );
        }
      }
      // the API root matches the catch-all route: once met, no body is read for it either
      const root = await call(t.baseUrl, 'POST', '', { auth: caller.auth, body: {} });
      expect(root.status).toBe(404);
      const rootAnswer = await rawRequest(t.baseUrl, {
        path: '/api/v1',
        headers: {
          'content-type': 'application/json',
          'content-length': String(5 * MIB),
          authorization: caller.auth,
        },
      });
      withMessage(`/api/v1 → ${rootAnswer.status} ${rootAnswer.body}`, () => {
        expect(rootAnswer.status).toBe(404);
        expect(rootAnswer.answeredBeforeBody).toBe(true);
      });
      // a caller holding the scope is still read
      const body = Buffer.from(JSON.stringify({ ttl_minutes: 5 }));
      const allowed = await rawRequest(t.baseUrl, {
        path: routes[2]!,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          authorization: caller.auth,
        },
        body,
        bodyAfterMs: 200,
      });
      expect(allowed.answeredBeforeBody).toBe(false);
      expect(allowed.status).toBe(201);
      const released = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
        auth: caller.auth,
        body: { lock_token: JSON.parse(allowed.body).lock_token as string },
      });
      expect(released.status).toBe(200);
    });

    it('reads the token endpoint’s body without a credential, and bounds its decompression', async () => {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: caller.client.clientId,
        client_secret: caller.client.clientSecret,
      }).toString();
      const ok = await call(t.baseUrl, 'POST', '/oauth/token', {
        rawBody: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(ok.status).toBe(200);
      // 5 KiB of gzip that expands to 5 MiB: refused before it is expanded past the bound
      const bomb = gzipSync(Buffer.from(`grant_type=${'a'.repeat(5 * 1024 * 1024)}`));
      expect(bomb.length).toBeLessThan(10 * 1024);
      const answer = await rawRequest(t.baseUrl, {
        path: '/api/v1/oauth/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-encoding': 'gzip',
          'content-length': String(bomb.length),
        },
        body: bomb,
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({
        error: 'invalid_request',
        error_description: 'the request body is too large',
      });
      // a token request is small: 16 KiB at most, whatever BODY_LIMIT is
      const big = await call(t.baseUrl, 'POST', '/oauth/token', {
        rawBody: `${form}&pad=${'p'.repeat(17 * 1024)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(big.status).toBe(413);
    });

    it('bounds decompression by ratio on every route: 300 KiB from 1 KiB is refused, ordinary JSON is not', async () => {
      const expanding = gzipSync(
        Buffer.from(JSON.stringify({ name: 'x', pad: ' '.repeat(300 * 1024) })),
      );
      expect(expanding.length).toBeLessThan(2 * 1024);
      const refused = await fetch(`${t.baseUrl}/api/v1/webhooks`, {
        method: 'POST',
        headers: {
          authorization: caller.auth,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body: expanding,
      });
      expect(refused.status).toBe(413);
      expect(((await refused.json()) as { code: string }).code).toBe('payload_too_large');
      const before = await webhookCount();
      const ordinary = gzipSync(
        Buffer.from(
          JSON.stringify({
            name: 'compressed',
            endpoint_url: 'https://hooks.example.com/compressed',
            events: ['*'],
          }),
        ),
      );
      const created = await fetch(`${t.baseUrl}/api/v1/webhooks`, {
        method: 'POST',
        headers: {
          authorization: caller.auth,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body: ordinary,
      });
      expect(created.status).toBe(201);
      expect(await webhookCount()).toBe(before + 1);
    });
  });

  describe('big bodies take turns, slow ones hold no one up', () => {
    it('answers another tenant’s big staging while a big upload is stalled halfway', async () => {
      const other = await createCaller(t.app);
      const otherProject = await createProject(t.app, other.tenantId);
      const otherDoc = await createDocument(t.app, other.tenantId, otherProject);
      const big = (n: number) => JSON.stringify({ content: { text: 'x'.repeat(n) } });
      const stalledBody = Buffer.from(big(600 * 1024));
      const { hostname, port } = new URL(t.baseUrl);
      const stalled = net.connect(Number(port), hostname);
      stalled.write(
        `POST /api/v1/documents/${documentId}/external-revisions HTTP/1.1\r\nHost: x\r\n` +
          `Authorization: ${caller.auth}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${stalledBody.length}\r\n\r\n`,
      );
      stalled.write(stalledBody.subarray(0, stalledBody.length >> 1));
      try {
        await new Promise((r) => setTimeout(r, 200));
        const res = await fetch(
          `${t.baseUrl}/api/v1/documents/${otherDoc.documentId}/external-revisions`,
          {
            method: 'POST',
            headers: { authorization: other.auth, 'content-type': 'application/json' },
            body: big(400 * 1024),
            signal: AbortSignal.timeout(5_000),
          },
        );
        expect(res.status).toBe(201);
      } finally {
        stalled.destroy();
      }
    });

    it('never stages a big body whose client left while it waited its turn', async () => {
      const projectId = await createProject(t.app, caller.tenantId);
      const { documentId: target } = await createDocument(t.app, caller.tenantId, projectId);
      const path = `/api/v1/documents/${target}/external-revisions`;
      const body = (n: number) => JSON.stringify({ content: { text: `${n}`.repeat(300 * 1024) } });
      const staged = async (): Promise<number> => {
        const { rows } = await holder.query<{ n: string }>(
          'SELECT count(*) AS n FROM external_revisions WHERE document_id = $1',
          [target],
        );
        return Number(rows[0]!.n);
      };
      const holder = new pg.Client({ connectionString: t.database.directUrl });
      await holder.connect();
      try {
        // the first big staging takes the one slot and waits on the document's row
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [target]);
        const post = (n: number) =>
          fetch(`${t.baseUrl}${path}`, {
            method: 'POST',
            headers: { authorization: caller.auth, 'content-type': 'application/json' },
            body: body(n),
          });
        const left = bigBodyTurns().left;
        const first = post(1);
        await until('the first holds the slot', () => bigBodyTurns().inUse === 1);
        // the second is read whole, waits its turn, and its client goes away
        const { hostname, port } = new URL(t.baseUrl);
        const gone = net.connect(Number(port), hostname);
        gone.on('error', () => undefined);
        const goneBody = Buffer.from(body(2));
        gone.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${caller.auth}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${goneBody.length}\r\n\r\n`,
        );
        gone.write(goneBody);
        await until('the second waits', () => bigBodyTurns().waiting === 1);
        gone.destroy();
        await until('the second has left the queue', () => bigBodyTurns().waiting === 0);
        expect((await t.scrape()).text).toContain(
          `turn_queue_abandoned_total{queue="big_bodies"} ${left + 1}`,
        );
        // the third waits for the slot too, and is served
        const third = post(3);
        await until('the third waits', () => bigBodyTurns().waiting === 1);
        await holder.query('COMMIT');
        expect([(await first).status, (await third).status]).toEqual([201, 201]);
        expect(await staged()).toBe(2);
        // the body nobody waited for is no error of the service's
        expect(t.logs.filter((line) => /CallerGoneError|unhandled error/.test(line))).toEqual([]);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    });

    it('reads two big bodies of a tenant beside the one in the slot: the next waits unread', async () => {
      const projectId = await createProject(t.app, caller.tenantId);
      const { documentId: target } = await createDocument(t.app, caller.tenantId, projectId);
      const other = await createCaller(t.app);
      const otherDoc = await createDocument(
        t.app,
        other.tenantId,
        await createProject(t.app, other.tenantId),
      );
      const body = (n: number) => JSON.stringify({ content: { text: `${n}`.repeat(300 * 1024) } });
      const post = (who: TestCaller, doc: number, n: number) =>
        fetch(`${t.baseUrl}/api/v1/documents/${doc}/external-revisions`, {
          method: 'POST',
          headers: { authorization: who.auth, 'content-type': 'application/json' },
          body: body(n),
        });
      const holder = new pg.Client({ connectionString: t.database.directUrl });
      await holder.connect();
      const { hostname, port } = new URL(t.baseUrl);
      const fourth = net.connect(Number(port), hostname);
      fourth.on('error', () => undefined);
      try {
        // the first big staging holds the slot, waiting on the document's row
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [target]);
        const first = post(caller, target, 1);
        await until('the first holds the slot', () => bigBodyTurns().inUse === 1);
        // two more are read and wait for the slot
        const second = post(caller, target, 2);
        const third = post(caller, target, 3);
        await until('the second and third are read', () => bigBodyTurns().waiting === 2);
        // the fourth of the tenant is not read, nor invited to send its body
        const heard: Buffer[] = [];
        fourth.on('data', (chunk: Buffer) => heard.push(chunk));
        fourth.write(
          `POST /api/v1/documents/${target}/external-revisions HTTP/1.1\r\nHost: x\r\n` +
            `Authorization: ${caller.auth}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body(4))}\r\nExpect: 100-continue\r\n\r\n`,
        );
        await until('the fourth waits to be read', () => bigBodyReads().waiting === 1);
        // another tenant's big body is read meanwhile: it waits for the slot beside the others
        const theirs = post(other, otherDoc.documentId, 5);
        await until('the other tenant’s is read', () => bigBodyTurns().waiting === 3);
        await new Promise((r) => setTimeout(r, 300));
        expect(Buffer.concat(heard).toString('latin1')).toBe('');
        expect(bigBodyReads().waiting).toBe(1);
        // its client leaves while it waits: it leaves the queue
        fourth.destroy();
        await until('the fourth has left', () => bigBodyReads().waiting === 0);
        // a fifth of the tenant waits its turn to be read, and is served
        const fifth = post(caller, target, 6);
        await until('the fifth waits to be read', () => bigBodyReads().waiting === 1);
        await holder.query('COMMIT');
        const answers = await Promise.all([first, second, third, theirs, fifth]);
        expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201, 201]);
        await until('no big body is read or waits', () => bigBodyReads().parties === 0);
      } finally {
        fourth.destroy();
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    });

    it('does not keep a connection whose GET carried a body it never reads', async () => {
      const answer = await rawRequest(t.baseUrl, {
        method: 'GET',
        path: '/api/v1/projects',
        headers: { authorization: caller.auth, 'content-length': String(MIB) },
      });
      expect(answer.status).toBe(200);
      expect(answer.answeredBeforeBody).toBe(true);
      expect(answer.headers.connection).toBe('close');
    });
  });

  describe('media types (item 4)', () => {
    const refused: Array<[string, string, string | undefined]> = [
      [
        'a form',
        'name=form-hook&events=*&endpoint_url=https://x.example.com',
        'application/x-www-form-urlencoded',
      ],
      [
        'text/plain',
        '{"name":"t","endpoint_url":"https://x.example.com","events":["*"]}',
        'text/plain',
      ],
      [
        'no Content-Type',
        '{"name":"t","endpoint_url":"https://x.example.com","events":["*"]}',
        undefined,
      ],
      [
        'a charset other than UTF-8',
        '{"name":"t","endpoint_url":"https://x.example.com","events":["*"]}',
        'application/json; charset=iso-8859-1',
      ],
      ['multipart', '--b\r\n\r\nx\r\n--b--', 'multipart/form-data; boundary=b'],
    ];

    it.each(refused)(
      'answers 415 to %s on a JSON route and writes nothing',
      async (_what, body, type) => {
        const before = await webhookCount();
        for (const path of bodyRoutes.slice(0, 3)) {
          const res = await fetch(`${t.baseUrl}${path}`, {
            method: 'POST',
            headers: { authorization: caller.auth, ...(type ? { 'content-type': type } : {}) },
            body,
          });
          const text = await res.text();
          withMessage(`${path} ${type} → ${res.status} ${text}`, () => {
            expect(res.status).toBe(415);
            expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(JSON.parse(text).code).toBe('unsupported_media_type');
          });
        }
        expect(await webhookCount()).toBe(before);
      },
    );

    it('answers 415 to a Content-Encoding it does not know', async () => {
      const res = await call(t.baseUrl, 'POST', '/webhooks', {
        auth: caller.auth,
        rawBody: '{}',
        headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
      });
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
    });

    it('takes forms and JSON on the token endpoint only, and answers it in RFC 6749 shape', async () => {
      const json = await call(t.baseUrl, 'POST', '/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: caller.client.clientId,
          client_secret: caller.client.clientSecret,
        },
      });
      expect(json.status).toBe(200);
      const basic = basicAuth(caller.client.clientId, caller.client.clientSecret);
      const text = await call(t.baseUrl, 'POST', '/oauth/token', {
        rawBody: 'grant_type=client_credentials',
        headers: { 'content-type': 'text/plain', authorization: basic },
      });
      expect(text.status).toBe(415);
      expect(text.body).toEqual({
        error: 'invalid_request',
        error_description: 'unsupported media type',
      });
    });
  });

  // in a process of its own, as deployed: in jest's process the server reads what the client
  // sends between the client's own writes, and the early close that breaks clients does not show
  describe('413 and 401 that clients can read (item 7)', () => {
    let service: ServiceProcess;
    const tooBig = 'x'.repeat(6 * 1024 * 1024);

    beforeAll(async () => {
      service = await startService({
        ...t.database.env,
        WEBHOOK_SECRET_KEY: t.config.WEBHOOK_SECRET_KEY!,
        WORKERS_ENABLED: 'false',
        BODY_LIMIT: '1mb',
        LOG_LEVEL: 'warn',
      });
    });

    afterAll(async () => {
      await service?.stop('SIGTERM', 15_000);
    });

    /** What Node's fetch reports for each of `n` requests: `<status> <code>` or the failure. */
    async function outcomes(path: string, headers: Record<string, string>, n = 16) {
      const seen: string[] = [];
      for (let i = 0; i < n; i += 1) {
        try {
          const res = await fetch(`${service.baseUrl}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: tooBig,
          });
          const body = (await res.json()) as { code?: string; error?: string };
          seen.push(`${res.status} ${body.code ?? body.error}`);
        } catch (err) {
          seen.push(`failed: ${String((err as { cause?: unknown }).cause ?? err)}`);
        }
      }
      return seen;
    }

    it('lets Node’s fetch read every 413 over BODY_LIMIT (no EPIPE, no reset)', async () => {
      expect(await outcomes('/api/v1/webhooks', { authorization: caller.auth })).toEqual(
        Array(16).fill('413 payload_too_large'),
      );
      expect(await outcomes('/api/v1/oauth/token', {})).toEqual(
        Array(16).fill('413 invalid_request'),
      );
    });

    it('lets Node’s fetch read every 401 that left a large body unread', async () => {
      expect(await outcomes('/api/v1/webhooks', {})).toEqual(Array(16).fill('401 unauthenticated'));
    });
  });
});
