import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { MAX_BODY_MEMBERS, MAX_BODY_TOTAL_MEMBERS } from '../src/common/http/validation.js';
import { contentHash } from '../src/modules/documents/content-hash.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createPat } from './support/auth-factories.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { addProjectFile, createDocument, createProject } from './support/read-factories.js';
import { fillPath, loadRouteTable, type Operation, type Schema } from './support/route-table.js';
import { createWebhook, publishEvents } from './support/webhook-factories.js';

/**
 * Hostile input over the app's own route table: arbitrary path, query, header and body values,
 * with a valid all-scope credential of an enterprise tenant and without one. Whatever arrives,
 * the answer is never a 5xx, every 4xx is a problem+json body (RFC 6749 on /oauth/token), and no
 * body carries a stack trace, SQL or ORM internals.
 *
 * Runs are seeded (FAST_CHECK_SEED overrides) so CI is deterministic; the seed is in the failure.
 */
const SEED = Number(process.env.FAST_CHECK_SEED ?? 20_261_122);
const BODY_LIMIT_BYTES = 64 * 1024;
const TOKEN_PATH = '/oauth/token';

const STACK_TRACE = /\bat [^\n]*?\(?(?:file:\/\/)?\/[^\s()]+:\d+:\d+/;
const SQL_TEXT =
  /\bSELECT\s[\s\S]{0,200}?\sFROM\s|\bINSERT\s+INTO\s|\bUPDATE\s+"?\w+"?\s+SET\s|\bDELETE\s+FROM\s|\bsyntax error at or near\b/i;
const INTERNALS = /QueryFailedError|TypeORM|node_modules/i;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Received {
  status: number;
  url: string;
  contentType: string;
  requestIdHeader: string | null;
  text: string;
}

/** How often each status was answered, for the summary. */
const statusCounts = new Map<number, number>();

/** Raw fetch: fuzz values are not passed through call(), so junk is never taken for a secret. */
async function send(baseUrl: string, req: Sent): Promise<Received> {
  const res = await fetch(`${baseUrl}/api/v1${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    redirect: 'manual',
  });
  statusCounts.set(res.status, (statusCounts.get(res.status) ?? 0) + 1);
  return {
    status: res.status,
    url: new URL(res.url).pathname,
    contentType: res.headers.get('content-type') ?? '',
    requestIdHeader: res.headers.get('x-request-id'),
    text: await res.text(),
  };
}

function describeExchange(req: Sent, res: Received): string {
  const body = req.body && req.body.length > 300 ? `${req.body.slice(0, 300)}…` : req.body;
  return `${req.method} ${req.path.slice(0, 300)} headers=${JSON.stringify(req.headers).slice(0, 400)} body=${body ?? ''} → ${res.status} ${res.contentType} ${res.text.slice(0, 500)}`;
}

/** The invariants every answer keeps, whatever was sent. */
function assertWellBehaved(req: Sent, res: Received, op: Operation, credentialed: boolean): void {
  const what = describeExchange(req, res);
  withMessage(what, () => expect(res.status).toBeLessThan(500));
  withMessage(`stack trace in ${what}`, () => expect(STACK_TRACE.test(res.text)).toBe(false));
  withMessage(`SQL in ${what}`, () => expect(SQL_TEXT.test(res.text)).toBe(false));
  withMessage(`internals in ${what}`, () => expect(INTERNALS.test(res.text)).toBe(false));
  if (!credentialed && op.secured && res.url !== '/api/v1/oauth/token') {
    withMessage(`no credential but ${what}`, () => expect(res.status).toBeGreaterThanOrEqual(400));
  }
  if (res.status < 400) return;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    throw new Error(`error body is not JSON: ${what}`);
  }
  // 431 is answered by the HTTP parser before any route is known
  if (res.url === `/api/v1${TOKEN_PATH}` && res.status !== 431) {
    withMessage(what, () => expect(res.contentType).toMatch(/^application\/json/));
    withMessage(what, () => expect(typeof body.error).toBe('string'));
    withMessage(what, () => expect(typeof body.error_description).toBe('string'));
    return;
  }
  withMessage(what, () => expect(res.contentType).toMatch(/^application\/problem\+json/));
  withMessage(what, () => expect(typeof body.type).toBe('string'));
  withMessage(what, () => expect(typeof body.title).toBe('string'));
  withMessage(what, () => expect(body.status).toBe(res.status));
  withMessage(what, () => expect(typeof body.code).toBe('string'));
  withMessage(what, () => expect(typeof body.request_id).toBe('string'));
  withMessage(what, () => expect(body.request_id).toBe(res.requestIdHeader));
}

// ---------------------------------------------------------------------------------------------
// generators

/** Percent-encodes every byte of the UTF-8 form except RFC 3986 unreserved characters. */
function encodeSegment(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9._~-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Any UTF-16 code unit, lone surrogates and NUL included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const anyString = (maxLength = 40): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof(anyCodeUnit, fc.constantFrom('\u0000', '\ud800', '\udfff', '😀', '../', '%')),
    maxLength,
  });

/** Already in URL form: sent as they are. */
const HOSTILE_SEGMENTS = [
  '',
  '0',
  '-1',
  '-0',
  '1e3',
  '0x10',
  '1.5',
  '+1',
  '%201',
  '01',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '99999999999999999999999999999999',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  '%5B%5D',
  '%7B%7D',
  '%00',
  '1%00',
  '%2500',
  '..%2f..%2fetc%2fpasswd',
  '..%2F',
  '%2e%2e',
  '%',
  '%ZZ',
  '%C0%AF',
  '%FF%FE',
  '%ED%A0%80',
  '%EF%BF%BF',
  '%F0%9F%98%80',
  '1%27%20OR%20%271%27%3D%271',
  '__proto__',
  'constructor',
  '9'.repeat(4000),
  'a'.repeat(4000),
  '%C3%A9'.repeat(600),
];

function pathValue(real: readonly number[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...real).map(String) },
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.integer(), fc.bigInt(), fc.double(), fc.constant(-0))
        .map((n) => encodeSegment(Object.is(n, -0) ? '-0' : String(n))),
    },
    { weight: 2, arbitrary: anyString().map(encodeSegment) },
  );
}

const QUERY_VALUES = [
  '',
  '0',
  '-1',
  '1',
  '50',
  '100',
  '101',
  '1e2',
  '1.5',
  '0x10',
  ' 1',
  'abc',
  'NaN',
  'Infinity',
  '-0',
  '99999999999999999999',
  '%00',
  '%',
  '%ED%A0%80',
  'a'.repeat(3000),
];

function queryString(op: Operation): fc.Arbitrary<string> {
  const key = fc.oneof(
    fc.constantFrom(
      ...op.queryParams,
      'limit',
      'offset',
      'limit[]',
      'limit[a]',
      '__proto__[x]',
      'constructor[prototype][x]',
      'x',
    ),
    anyString(8).map(encodeSegment),
  );
  const value = fc.oneof(fc.constantFrom(...QUERY_VALUES), anyString().map(encodeSegment));
  return fc
    .array(fc.tuple(key, value), { maxLength: 4 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));
}

/** Header values fetch can send: latin-1, no CR, LF or NUL. */
const headerJunk = fc.oneof(
  fc.constantFrom(
    '',
    '*',
    '"abc"',
    'W/"abc"',
    '""',
    '"',
    ',,,',
    '*, "x"',
    `"${'0'.repeat(64)}"`,
    'glk_' + 'A'.repeat(49),
    'glk_',
    'a'.repeat(300),
    'a'.repeat(6000),
    '\u00ff\u00fe',
    '../../etc/passwd',
  ),
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
    ),
    maxLength: 60,
  }),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'application/merge-patch+json',
  'application/xml',
  'application/problem+json',
  '*/*',
  'json',
];

function junkHeaders(
  authorization: fc.Arbitrary<string | undefined>,
): fc.Arbitrary<Record<string, string>> {
  return fc
    .record(
      {
        authorization,
        'if-match': headerJunk,
        'if-none-match': headerJunk,
        'idempotency-key': headerJunk,
        'lock-token': headerJunk,
        'x-request-id': headerJunk,
        'x-forwarded-for': headerJunk,
        accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
        'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-junk'),
      },
      { requiredKeys: [] },
    )
    .map((h) => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(h)) if (typeof v === 'string') out[k] = v;
      return out;
    });
}

function deepArray(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** JSON texts no JSON.stringify produces: out-of-range numbers, escapes, deep nesting. */
const RAW_JSON_VALUES = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0',
  '-1',
  '2147483648',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.5',
  'true',
  'false',
  'null',
  '""',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"\\uFFFF"',
  '[]',
  '{}',
  '[null]',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `"${'x'.repeat(10_000)}"`,
  `"${'é'.repeat(40_000)}"`,
  deepArray(2_000),
  '{"a":'.repeat(1_000) + '1' + '}'.repeat(1_000),
];

const hostileJsonValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...RAW_JSON_VALUES) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: anyString().map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.double().map((n) => JSON.stringify(n)) },
);

function validValue(name: string, schema: Schema, real: RealIds): fc.Arbitrary<string> {
  if (schema.enum && schema.enum.length)
    return fc.constantFrom(...schema.enum).map((v) => JSON.stringify(v));
  switch (schema.type) {
    case 'integer':
      return fc
        .oneof(
          fc.integer({ min: schema.minimum ?? 1, max: schema.maximum ?? 2_000 }),
          fc.constantFrom(
            ...(real.ids[`${name.replace(/_id$/, '')}Id`] ?? real.ids.versionId ?? [1]),
          ),
        )
        .map(String);
    case 'string':
      if (name === 'endpoint_url') {
        return fc
          .constantFrom(
            'https://example.invalid/hook',
            'http://127.0.0.1:9/hook',
            'https://u:p@example.invalid/',
          )
          .map((v) => JSON.stringify(v));
      }
      if (name === 'lock_token')
        return fc.constantFrom(...real.lockTokens).map((v) => JSON.stringify(v));
      return anyString(schema.maxLength ? Math.min(schema.maxLength, 60) : 60).map((v) =>
        JSON.stringify(v),
      );
    case 'array': {
      const items = schema.items?.enum;
      if (items?.length) return fc.subarray(items as string[]).map((v) => JSON.stringify(v));
      return fc
        .array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 })
        .map((v) => JSON.stringify(v));
    }
    case 'object':
      return fc
        .dictionary(anyString(10), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
        .map((v) => JSON.stringify(v));
    default:
      return fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
  }
}

/** A DTO-shaped object: each field valid, wrong-typed or absent, plus the odd unknown key. */
function dtoBody(schema: Schema, real: RealIds): fc.Arbitrary<string> {
  const props = Object.entries(schema.properties ?? {});
  const field = ([name, s]: [string, Schema]) =>
    fc.option(
      fc
        .oneof(
          { weight: 2, arbitrary: validValue(name, s, real) },
          { weight: 2, arbitrary: hostileJsonValue },
        )
        .map((v) => [name, v] as [string, string]),
      { freq: 4 },
    );
  const extra = fc.option(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', ''),
        anyString(10),
      ),
      hostileJsonValue,
    ),
    { freq: 2 },
  );
  return fc.tuple(fc.tuple(...props.map(field)), extra).map(([fields, more]) => {
    const entries = [...fields, more].filter((e): e is [string, string] => e !== null);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  });
}

function bodyText(op: Operation, real: RealIds): fc.Arbitrary<string> {
  const schema = op.body?.schema ?? {};
  return fc.oneof(
    { weight: 5, arbitrary: dtoBody(schema, real) },
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
    {
      weight: 1,
      arbitrary: fc.anything({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'undefined'),
    },
    { weight: 2, arbitrary: hostileJsonValue },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        '{"a" 1}',
        "{'a':1}",
        '[1,]',
        'NaN',
        '\u0000',
        '{"a":1}{"b":2}',
        '\ufeff{}',
      ),
    },
    { weight: 1, arbitrary: anyString(200) },
  );
}

function requestBody(
  op: Operation,
  real: RealIds,
): fc.Arbitrary<{ body?: string; contentType?: string }> {
  if (!op.body || op.method === 'GET') return fc.constant({});
  return fc.record(
    {
      body: bodyText(op, real),
      contentType: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...op.body.contentTypes) },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
    },
    { requiredKeys: ['body'] },
  );
}

/** Ids that exist in the caller's tenant, by path parameter name, and its live lock tokens. */
interface RealIds {
  ids: Record<string, number[]>;
  lockTokens: string[];
}

// ---------------------------------------------------------------------------------------------

// for each test and hook of this file
jest.setTimeout(120_000);

describe('hostile input over every operation of the OpenAPI document', () => {
  let t: TestApp;
  let caller: TestCaller;
  let patAuth: string;
  let routes: Operation[];
  const real: RealIds = { ids: {}, lockTokens: [] };
  /** The operation's path with the first real id of each parameter. */
  const realPath = (op: Operation): string =>
    fillPath(
      op.template,
      Object.fromEntries(op.pathParams.map((p) => [p, String(real.ids[p]![0])])),
    );
  /** A JSON request with the caller's token. */
  const jsonAsCaller = (method: string, path: string, body: string): Sent => ({
    method,
    path,
    headers: { authorization: caller.auth, 'content-type': 'application/json' },
    body,
  });
  const stats: Array<{ property: string; runs: number }> = [];

  beforeAll(async () => {
    t = await startTestApp({
      BODY_LIMIT: '64kb',
      RATE_LIMIT_API_PER_MINUTE: '1000000',
      RATE_LIMIT_TOKEN_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
    });
    caller = await createCaller(t.app, { plan: 'enterprise' });
    patAuth = (await createPat(t.app, caller.tenantId)).auth;
    const projectId = await createProject(t.app, caller.tenantId);
    await addProjectFile(t.app, caller.tenantId, projectId);
    const doc = await createDocument(t.app, caller.tenantId, projectId, { versions: 2 });
    const lockedDoc = await createDocument(t.app, caller.tenantId, projectId);
    const lock = await call(t.baseUrl, 'POST', `/documents/${lockedDoc.documentId}/checkout`, {
      auth: caller.auth,
      body: { ttl_minutes: 240 },
    });
    expect(lock.status).toBe(201);
    const staged = await call(
      t.baseUrl,
      'POST',
      `/documents/${doc.documentId}/external-revisions`,
      {
        auth: caller.auth,
        body: { content: { a: 1 } },
      },
    );
    expect(staged.status).toBe(201);
    const webhook = await createWebhook(t.baseUrl, caller.auth, 'https://example.invalid/hook');
    await publishEvents(t.app, caller.tenantId, 2);
    const deliveries: Array<{ id: string }> = await t.app
      .get(DataSource)
      .query(`SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id`, [
        webhook.webhookId,
      ]);
    await t.app
      .get(DataSource)
      .query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [deliveries[0]!.id]);
    real.lockTokens = [lock.body.lock_token as string, 'glk_' + 'A'.repeat(49)];
    Object.assign(real.ids, {
      projectId: [projectId],
      documentId: [doc.documentId, lockedDoc.documentId],
      versionId: [...doc.versionIds, ...lockedDoc.versionIds],
      revisionId: [staged.body.revisionId as number],
      webhookId: [webhook.webhookId],
      deliveryId: deliveries.map((d) => Number(d.id)),
    });
    routes = await loadRouteTable(t.baseUrl);
  });

  afterAll(async () => {
    // the table the issue asks for: properties × runs
    console.log(
      `hostile-input properties (seed ${SEED}):\n` +
        stats.map((s) => `  ${s.property.padEnd(70)} ${s.runs}`).join('\n') +
        `\n  total requests ${stats.reduce((n, s) => n + s.runs, 0)}; answers by status: ` +
        JSON.stringify(Object.fromEntries([...statusCounts].sort((x, y) => x[0] - y[0]))),
    );
    await t?.close();
  });

  it('reads a route table that covers every endpoint of the API', () => {
    const keys = routes.map((r) => `${r.method} ${r.template}`);
    for (const expected of [
      'POST /oauth/token',
      'GET /projects',
      'GET /projects/{projectId}',
      'GET /projects/{projectId}/documents',
      'GET /projects/{projectId}/files',
      'GET /documents/{documentId}',
      'GET /documents/{documentId}/versions/{versionId}',
      'POST /documents/{documentId}/external-revisions',
      'POST /documents/{documentId}/checkout',
      'POST /documents/{documentId}/checkin',
      'GET /webhooks',
      'POST /webhooks',
      'POST /webhooks/{webhookId}/status',
      'GET /webhooks/{webhookId}',
      'PATCH /webhooks/{webhookId}',
      'POST /webhooks/{webhookId}/secret/rotate',
      'POST /webhooks/{webhookId}/test',
      'GET /webhook-deliveries',
      'POST /webhook-deliveries/{deliveryId}/replay',
    ]) {
      expect(keys).toContain(expected);
    }
    for (const r of routes) {
      for (const p of r.pathParams) {
        withMessage(`fixture ids for ${p}`, () => expect(real.ids[p]).toBeDefined());
      }
    }
  });

  function request(op: Operation, credentialed: boolean) {
    const auth: fc.Arbitrary<string | undefined> = credentialed
      ? fc.constantFrom(caller.auth, patAuth)
      : fc.oneof(
          fc.constant(undefined),
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            'Basic',
            'Basic !!!',
            'Basic ' + Buffer.from('gci_x:gcs_y').toString('base64'),
            'Bearer gat_' + 'A'.repeat(49),
            'Bearer gpat_' + 'A'.repeat(49),
            `Bearer ${caller.token.slice(0, -1)}${caller.token.endsWith('A') ? 'B' : 'A'}`,
            caller.auth.toLowerCase(),
            'Bearer ' + 'a'.repeat(7000),
            'Negotiate abc',
            `Bearer ${caller.token} extra`,
          ),
          headerJunk.map((v) => `Bearer ${v}`),
          headerJunk,
        );
    const pathArbs: Record<string, fc.Arbitrary<string>> = {};
    for (const p of op.pathParams) pathArbs[p] = pathValue(real.ids[p]!);
    return fc.record({
      path: fc.record(pathArbs),
      query: queryString(op),
      headers: junkHeaders(auth),
      payload: requestBody(op, real),
    });
  }

  async function exercise(op: Operation, credentialed: boolean, numRuns: number): Promise<void> {
    stats.push({
      property: `${op.method} ${op.template} ${credentialed ? 'valid token' : 'no/invalid token'}`,
      runs: numRuns,
    });
    await fc.assert(
      fc.asyncProperty(request(op, credentialed), async ({ path, query, headers, payload }) => {
        const h = { ...headers };
        if (payload.contentType !== undefined) h['content-type'] = payload.contentType;
        const req: Sent = {
          method: op.method,
          path: fillPath(op.template, path) + query,
          headers: h,
          body: payload.body,
        };
        const res = await send(t.baseUrl, req);
        assertWellBehaved(req, res, op, credentialed);
      }),
      { numRuns, seed: SEED, endOnFailure: true },
    );
  }

  it('never answers 5xx, non-problem bodies or internals, with a valid token', async () => {
    for (const op of routes) await exercise(op, true, op.body ? 100 : 50);
  });

  it('never answers 5xx, non-problem bodies or internals, without a valid token', async () => {
    for (const op of routes) await exercise(op, false, 25);
  });

  it('refuses every wrong type of every body field with a 400 problem, field by field', async () => {
    let sent = 0;
    for (const op of routes.filter((r) => r.body)) {
      const path = realPath(op);
      const props = Object.keys(op.body!.schema.properties ?? {});
      for (const field of props) {
        for (const wrong of RAW_JSON_VALUES) {
          const req = jsonAsCaller(op.method, path, `{${JSON.stringify(field)}:${wrong}}`);
          const res = await send(t.baseUrl, req);
          sent += 1;
          assertWellBehaved(req, res, op, true);
        }
      }
    }
    stats.push({ property: 'every body field × every raw hostile JSON value', runs: sent });
    expect(sent).toBeGreaterThan(100);
  });

  // docs/operators/security.md: without a credential no body is read, so the answer is the 401 (the token
  // endpoint, which authenticates from its body, answers 413)
  it('answers 413 payload_too_large to a body over BODY_LIMIT on every body route (401 without a token)', async () => {
    for (const op of routes.filter((r) => r.body)) {
      const path = realPath(op);
      for (const auth of [caller.auth, undefined]) {
        const req: Sent = {
          method: op.method,
          path,
          headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
          body: JSON.stringify({ content: { x: 'y'.repeat(BODY_LIMIT_BYTES + 10) } }),
        };
        const res = await send(t.baseUrl, req);
        const isToken = res.url === `/api/v1${TOKEN_PATH}`;
        const expected = auth || isToken ? 413 : 401;
        withMessage(describeExchange(req, res), () => expect(res.status).toBe(expected));
        assertWellBehaved(req, res, op, Boolean(auth));
        const body = JSON.parse(res.text) as { code?: string; error?: string };
        if (isToken) expect(body.error).toBe('invalid_request');
        else expect(body.code).toBe(auth ? 'payload_too_large' : 'unauthenticated');
      }
    }
  });

  it('answers oversized headers with a 431 problem body, not an empty one', async () => {
    const op = routes.find((r) => r.template === '/projects')!;
    for (const headers of <Array<Record<string, string>>>[
      { authorization: caller.auth, 'x-junk': 'a'.repeat(20_000) },
      { authorization: `Bearer ${'a'.repeat(20_000)}` },
    ]) {
      const req: Sent = { method: 'GET', path: '/projects', headers };
      const res = await send(t.baseUrl, req);
      withMessage(describeExchange(req, res), () => expect(res.status).toBe(431));
      assertWellBehaved(req, res, op, false);
      expect(JSON.parse(res.text).code).toBe('headers_too_large');
    }
    const alive = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
    expect(alive.status).toBe(200);
  });

  it('refuses deeply nested JSON cleanly and keeps serving', async () => {
    const bodies = [
      '['.repeat(100_000),
      deepArray(100_000),
      `{"content":{"a":${deepArray(30_000)}}}`,
      `{"content":${'{"a":'.repeat(12_000)}1${'}'.repeat(12_000)}}`,
    ];
    for (const op of routes.filter((r) => r.body)) {
      const path = realPath(op);
      for (const body of bodies) {
        const req = jsonAsCaller(op.method, path, body);
        const res = await send(t.baseUrl, req);
        withMessage(describeExchange(req, res), () => expect([400, 413]).toContain(res.status));
        assertWellBehaved(req, res, op, true);
        const alive = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
        expect(alive.status).toBe(200);
      }
    }
  });

  it(`refuses objects and arrays wider than ${MAX_BODY_MEMBERS} members outside free JSON, naming them; free JSON may be wider`, async () => {
    const wide = (n: number, prefix = 'k') =>
      `{${Array.from({ length: n }, (_, i) => `"${prefix}${i}":${i}`).join(',')}}`;
    const tooWide = `must not have more than ${MAX_BODY_MEMBERS} members`;
    let checked = 0;
    for (const op of routes.filter((r) => r.body && r.secured)) {
      const path = realPath(op);
      const fields = Object.keys(op.body!.schema.properties ?? {});
      const bodies: Array<[string, string]> = [
        ['body', wide(MAX_BODY_MEMBERS + 1)],
        ...fields
          .filter((f) => f !== 'content')
          .map((f): [string, string] => [f, `{"${f}":${wide(MAX_BODY_MEMBERS + 1)}}`]),
        ...fields
          .filter((f) => f !== 'content')
          .map((f): [string, string] => [
            f,
            `{"${f}":[${Array.from({ length: MAX_BODY_MEMBERS + 1 }, () => '0').join(',')}]}`,
          ]),
      ];
      // narrow enough each, too many in all
      const narrow = `[${new Array(MAX_BODY_MEMBERS - 1).fill(0).join(',')}]`;
      const many = `{"${fields.find((f) => f !== 'content') ?? 'x'}":[${new Array(11).fill(narrow).join(',')}]}`;
      const total = `must not have more than ${MAX_BODY_TOTAL_MEMBERS} members in all (free JSON aside)`;
      bodies.push(['body', many]);
      for (const [field, body] of bodies) {
        const req = jsonAsCaller(op.method, path, body);
        const res = await send(t.baseUrl, req);
        withMessage(describeExchange(req, res), () => {
          expect(res.status).toBe(400);
          expect((JSON.parse(res.text) as { errors?: unknown }).errors).toEqual([
            { field, message: body === many ? total : tooWide },
          ]);
        });
        assertWellBehaved(req, res, op, true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
    // a document's content is free JSON: as wide as the body limit lets it be (a document of its
    // own: the others may be locked by now)
    const projectId = real.ids['projectId']![0]!;
    const { documentId } = await createDocument(t.app, caller.tenantId, projectId);
    const staged = await send(
      t.baseUrl,
      jsonAsCaller(
        'POST',
        `/documents/${documentId}/external-revisions`,
        `{"content":{"a":${wide(3_000)},"b":[${new Array(3_000).fill(0).join(',')}]}}`,
      ),
    );
    withMessage(staged.text, () => expect(staged.status).toBe(201));
  });

  it('lets no __proto__ or constructor key pollute anything', async () => {
    const before = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const poison = [
      '{"__proto__":{"polluted":true,"isAdmin":true,"status":500}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"content":{"__proto__":{"polluted":true}},"__proto__":{"polluted":true}}',
      '{"content":{"constructor":{"prototype":{"polluted":true}}}}',
      '{"grant_type":"client_credentials","__proto__":{"client_id":"x"}}',
    ];
    for (const op of routes.filter((r) => r.body)) {
      const path = realPath(op);
      for (const body of poison) {
        const req = jsonAsCaller(op.method, path, body);
        const res = await send(t.baseUrl, req);
        assertWellBehaved(req, res, op, true);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys);
    const after = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    const unknown = await call(t.baseUrl, 'GET', '/projects/2000000000', { auth: caller.auth });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('project_not_found');
  });

  it('refuses a content key named __proto__ at any depth, naming it, and stores nothing (docs/operators/security.md)', async () => {
    const projectId = await createProject(t.app, caller.tenantId);
    const { documentId } = await createDocument(t.app, caller.tenantId, projectId);
    const path = `/documents/${documentId}/external-revisions`;
    for (const [text, field] of [
      ['{"content":{"__proto__":{"x":1},"constructor":"c","y":2}}', 'content.__proto__'],
      ['{"content":{"a":[{"b":{"__proto__":null}}]}}', 'content.a[0].b.__proto__'],
    ] as const) {
      const res = await send(t.baseUrl, jsonAsCaller('POST', path, text));
      withMessage(`${text} → ${res.status} ${res.text}`, () => {
        expect(res.status).toBe(400);
        const body = JSON.parse(res.text) as { code: string; errors: Array<{ field: string }> };
        expect(body.code).toBe('validation_failed');
        expect(body.errors.map((e) => e.field)).toEqual([field]);
      });
    }
    // a name like it is data
    const like = '{"content":{"__proto__x":{"x":1},"_proto_":2}}';
    const kept = await send(t.baseUrl, jsonAsCaller('POST', path, like));
    expect(kept.status).toBe(201);
    const staged = JSON.parse(kept.text) as { content_hash: string };
    expect(staged.content_hash).toBe(
      contentHash((JSON.parse(like) as { content: unknown }).content),
    );
    const listed = await call(t.baseUrl, 'GET', path, { auth: caller.auth });
    expect(listed.body.data).toHaveLength(1);
  });
});
