import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import { BIG_BODY_BYTES } from '../src/common/http/big-body.js';
import { bigJsonBodiesDecoded } from '../src/common/http/json-worker-pool.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createDocument, createProject } from './support/read-factories.js';

/**
 * Issue 34 item 1: `content` holds at most CONTENT_MAX_NODES values and CONTENT_MAX_DEPTH levels,
 * counted before the body is parsed; past either, 400 `validation_failed` naming the limit, and
 * nothing is stored. A big body (over 256 KiB) is decoded, checked, canonicalised and hashed in
 * the JSON worker: the same answers, the same hash, the same Idempotency-Key request hash.
 */
const MAX_NODES = 1_000;
const MAX_DEPTH = 8;

let t: TestApp;
let caller: TestCaller;
let documentId: number;

beforeAll(async () => {
  t = await startTestApp({
    CONTENT_MAX_NODES: String(MAX_NODES),
    CONTENT_MAX_DEPTH: String(MAX_DEPTH),
  });
  caller = await createCaller(t.app);
  const projectId = await createProject(t.app, caller.tenantId);
  documentId = (await createDocument(t.app, caller.tenantId, projectId)).documentId;
});

afterAll(async () => {
  await t?.close();
});

function stage(body: string | Buffer, headers: Record<string, string> = {}) {
  return fetch(`${t.baseUrl}/api/v1/documents/${documentId}/external-revisions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: caller.auth, ...headers },
    body,
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, any> }));
}

async function stagedCount(): Promise<number> {
  const res = await call(t.baseUrl, 'GET', `/documents/${documentId}/external-revisions`, {
    auth: caller.auth,
  });
  return (res.body.data as unknown[]).length;
}

/**
 * Content of exactly `nodes` values: the object and `nodes - 1` strings of `width` characters,
 * some of them not ASCII.
 */
function contentOf(nodes: number, width: number): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: nodes - 1 }, (_, i) => [`k${i}`, `${i}`.padEnd(width, i % 2 ? 'x' : 'ü')]),
  );
}

/** `levels` levels of objects and arrays, alternating, around a string. */
function nested(levels: number, leaf = 'x'): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 1; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return { k: v };
}

const hashOf = (content: unknown): string =>
  createHash('sha256').update(canonicalize(content)!).digest('hex');

describe.each([
  ['small body (parsed on the event loop)', 16],
  ['big body (the JSON worker)', 600],
])('content limits, %s', (_what, width) => {
  it('takes exactly CONTENT_MAX_NODES values and refuses one more, storing nothing', async () => {
    const at = contentOf(MAX_NODES, width);
    const big = JSON.stringify({ content: at }).length > BIG_BODY_BYTES;
    expect(big).toBe(width > 100);
    const decoded = bigJsonBodiesDecoded();
    const ok = await stage(JSON.stringify({ content: at }));
    expect(ok.status).toBe(201);
    expect(ok.body.content_hash).toBe(hashOf(at));
    // a big body went through the worker; a small one did not
    expect(bigJsonBodiesDecoded()).toBe(decoded + (big ? 1 : 0));
    // stored as sent (a big body's content goes to PostgreSQL as binary jsonb)
    const read = await call(
      t.baseUrl,
      'GET',
      `/documents/${documentId}/external-revisions/${ok.body.revisionId}`,
      { auth: caller.auth },
    );
    expect(read.body.content).toEqual(at);

    const before = await stagedCount();
    const over = await stage(JSON.stringify({ content: { ...at, one: 'more' } }));
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('validation_failed');
    expect(over.body.errors).toEqual([
      {
        field: 'content',
        message: expect.stringContaining(`more than ${MAX_NODES} values in all (CONTENT_MAX_NODES`),
      },
    ]);
    expect(await stagedCount()).toBe(before);
  });

  it('takes exactly CONTENT_MAX_DEPTH levels and refuses one more, storing nothing', async () => {
    const pad = 'p'.repeat(width * MAX_NODES * 0.9);
    const ok = await stage(JSON.stringify({ content: nested(MAX_DEPTH, pad) }));
    expect(ok.status).toBe(201);
    expect(ok.body.content_hash).toBe(hashOf(nested(MAX_DEPTH, pad)));

    const before = await stagedCount();
    const over = await stage(JSON.stringify({ content: nested(MAX_DEPTH + 1, pad) }));
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([
      {
        field: 'content',
        message: `must not be nested deeper than ${MAX_DEPTH} levels (CONTENT_MAX_DEPTH)`,
      },
    ]);
    expect(await stagedCount()).toBe(before);
  });

  it('refuses what content may not hold, named by its path, storing nothing', async () => {
    const before = await stagedCount();
    const content = { ...contentOf(100, width), list: ['a', { deep: 'bad\u0000' }] };
    const res = await stage(JSON.stringify({ content }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'content.list[1].deep', message: expect.stringContaining('U+0000') },
    ]);
    const proto = await stage(
      JSON.stringify({ content: contentOf(100, width) }).replace('"k1"', '"__proto__"'),
    );
    expect(proto.status).toBe(400);
    expect(proto.body.errors).toEqual([
      { field: 'content.__proto__', message: 'is not an allowed key' },
    ]);
    expect(await stagedCount()).toBe(before);
  });
});

describe('content limits on any body shape', () => {
  it('refuses 1.7 million {} (5 MB) with 400 naming the limit, storing nothing', async () => {
    const before = await stagedCount();
    const res = await stage(`{"content":{"a":[${Array(1_700_000).fill('{}').join(',')}]}}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('content');
    expect(res.body.errors[0].message).toContain('CONTENT_MAX_NODES');
    expect(await stagedCount()).toBe(before);
  });

  it('refuses a big member outside content as too many members, without building it here', async () => {
    const events = Array.from({ length: 900 }, (_, i) => `e${i}`.padEnd(400, 'x'));
    const res = await call(t.baseUrl, 'POST', '/webhooks', {
      auth: caller.auth,
      body: { name: 'hook', endpoint_url: 'https://example.com/hook', events },
    });
    // parsed back on the event loop (900 values) and checked by the request class as ever
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors[0].field).toMatch(/^events/);
  });

  it('hashes a big body’s request as a small one’s: the same Idempotency-Key replays', async () => {
    // the same JSON, once as is (small) and once gzipped (big: it may expand 50 times)
    const content = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`k${i}`, randomBytes(50).toString('hex')]),
    );
    const body = JSON.stringify({ content, source_reference: 'ref' });
    expect(body.length).toBeLessThan(BIG_BODY_BYTES);
    const zipped = gzipSync(body);
    expect(zipped.length * 50).toBeGreaterThan(BIG_BODY_BYTES);
    const key = { 'idempotency-key': 'content-limits-replay' };
    const first = await stage(body, key);
    expect(first.status).toBe(201);
    const decoded = bigJsonBodiesDecoded();
    const again = await stage(zipped, { ...key, 'content-encoding': 'gzip' });
    expect(bigJsonBodiesDecoded()).toBe(decoded + 1);
    expect(again.status).toBe(201);
    expect(again.body.revisionId).toBe(first.body.revisionId);
    const other = await stage(gzipSync(JSON.stringify({ content: { ...content, x: 'y' } })), {
      ...key,
      'content-encoding': 'gzip',
    });
    expect(other.status).toBe(409);
  });
});
