import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { call } from './support/http.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { createDocument, createProject } from './support/read-factories.js';
import { createWebhook } from './support/webhook-factories.js';

/**
 * Issue 18 item 2: content is stored, hashed, returned and accepted exactly as sent, keys named
 * like members of `Object.prototype` or `Function.prototype` (`constructor`, `toString`, `call`,
 * `__proto__`-like names, …) included, at any depth; at the top level of a body such names are
 * unknown fields (400) like any other. `__proto__` itself is refused with 400 at any depth
 * (docs/operators/security.md): it has a test of its own below, and is left out of the kept names.
 *
 * Seeded (FAST_CHECK_SEED overrides) so CI is deterministic; the seed is in a failure's message.
 */
const SEED = Number(process.env.FAST_CHECK_SEED ?? 20_261_124);

/**
 * Every own property name of the two prototypes a JSON key could be mistaken for a member of, but
 * `__proto__` (refused: docs/operators/security.md), and names like it.
 */
const BUILT_IN_NAMES = [
  ...new Set([
    ...Object.getOwnPropertyNames(Object.prototype),
    ...Object.getOwnPropertyNames(Function.prototype),
    '__proto__x',
    '_proto_',
    '__PROTO__',
  ]),
]
  .filter((name) => name !== '__proto__')
  .sort();

/** What the service refuses by design (issue 18 item 3): U+0000 and lone surrogates. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const text = fc
  .string({ unit: 'binary', maxLength: 12 })
  .filter((s) => !s.includes('\u0000') && !LONE_SURROGATE.test(s));
const key = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...BUILT_IN_NAMES) },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** An object whose keys are its own data properties, `__proto__` included (no setter runs). */
function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    Object.defineProperty(object, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

const { json } = fc.letrec<{ json: unknown; array: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    json: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      text,
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('json'), { maxLength: 4 }),
    object: fc
      .uniqueArray(fc.tuple(key, tie('json')), { maxLength: 6, selector: ([k]) => k })
      .map(objectOf),
  }),
);
const content = fc
  .uniqueArray(fc.tuple(key, json), { maxLength: 8, selector: ([k]) => k })
  .map(objectOf);

/** Lowercase hex SHA-256 of the RFC 8785 canonical JSON (the reference implementation). */
function jcsHash(value: unknown): string {
  return createHash('sha256')
    .update(canonicalize(value) ?? '', 'utf8')
    .digest('hex');
}

/** The JSON value a JSON text denotes (what the server should see: `-0` is written `0`). */
function asSent(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

let t: TestApp;
let caller: TestCaller;
let documentId: number;

beforeAll(async () => {
  t = await startTestApp();
  caller = await createCaller(t.app, { plan: 'enterprise' });
  const projectId = await createProject(t.app, caller.tenantId);
  ({ documentId } = await createDocument(t.app, caller.tenantId, projectId));
});

afterAll(async () => {
  await t?.close();
});

function stageRaw(body: string, headers: Record<string, string> = {}) {
  return call(t.baseUrl, 'POST', `/documents/${documentId}/external-revisions`, {
    auth: caller.auth,
    rawBody: body,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

describe('content keeps every key (issue 18 item 2)', () => {
  it('round-trips staging -> read -> accept -> version read, hashed as RFC 8785 of what was sent', async () => {
    const decisions = t.app.get(RevisionDecisionService);
    await fc.assert(
      fc.asyncProperty(content, async (sentContent) => {
        const body = JSON.stringify({ content: sentContent });
        const sent = asSent(sentContent);
        const hash = jcsHash(sent);
        const what = `staged ${body}`;

        const staged = await stageRaw(body);
        withMessage(`${what} → ${staged.status} ${staged.text}`, () => {
          expect(staged.status).toBe(201);
          expect(staged.body.content_hash).toBe(hash);
        });
        const revisionId = staged.body.revisionId as number;

        const read = await call(
          t.baseUrl,
          'GET',
          `/documents/${documentId}/external-revisions/${revisionId}`,
          { auth: caller.auth },
        );
        withMessage(`${what}, read back ${read.text}`, () => {
          expect(read.status).toBe(200);
          expect(read.body.content).toEqual(sent);
          expect(canonicalize(read.body.content)).toBe(canonicalize(sent));
          expect(read.body.content_hash).toBe(hash);
        });

        const decision = await decisions.accept(revisionId, 'property test');
        const versionId = decision.resulting_version_id!;
        const version = await call(
          t.baseUrl,
          'GET',
          `/documents/${documentId}/versions/${versionId}`,
          { auth: caller.auth },
        );
        withMessage(`${what}, accepted as ${version.text}`, () => {
          expect(version.status).toBe(200);
          expect(version.body.content).toEqual(sent);
          expect(canonicalize(version.body.content)).toBe(canonicalize(sent));
          expect(version.body.content_hash).toBe(hash);
          expect(version.headers.get('etag')).toBe(`"${hash}"`);
        });
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('refuses a number it could not give back as sent (400, nothing staged), and keeps every other', async () => {
    const revisions = async () =>
      Number(
        (
          await t.app
            .get(DataSource)
            .query<Array<{ n: string }>>(
              `SELECT count(*) AS n FROM external_revisions WHERE document_id = $1`,
              [documentId],
            )
        )[0]!.n,
      );
    // integers past 2^53, and decimals of up to 22 significant digits
    const spelled = fc.oneof(
      fc.bigInt({ min: 2n ** 53n, max: 10n ** 24n }).map(String),
      fc
        .tuple(fc.bigInt({ min: 1n, max: 10n ** 22n }), fc.integer({ min: -30, max: 30 }))
        .map(([digits, exponent]) => `${digits}e${exponent}`),
    );
    await fc.assert(
      fc.asyncProperty(spelled, async (number) => {
        const before = await revisions();
        const staged = await stageRaw(`{"content":{"n":${number}}}`);
        const value = Number(number);
        // what the service keeps is a double: exact when its shortest spelling is the number sent
        const exact = keptAsSent(number, value);
        withMessage(`${number} → ${staged.status} ${staged.text}`, () => {
          if (exact) {
            expect(staged.status).toBe(201);
            expect(staged.body.content_hash).toBe(jcsHash({ n: value }));
          } else {
            expect(staged.status).toBe(400);
            expect(staged.body.code).toBe('validation_failed');
            expect(staged.body.errors[0].message).toContain('cannot keep exactly');
          }
        });
        expect(await revisions()).toBe(before + (exact ? 1 : 0));
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('keeps such keys at any depth, hashed over all of them', async () => {
    for (const name of BUILT_IN_NAMES) {
      const body = `{"content":{${JSON.stringify(name)}:{${JSON.stringify(name)}:[{${JSON.stringify(name)}:1}]},"x":2}}`;
      const sent = (JSON.parse(body) as { content: unknown }).content;
      const res = await stageRaw(body);
      withMessage(`${body} → ${res.status} ${res.text}`, () => {
        expect(res.status).toBe(201);
        expect(res.body.content_hash).toBe(jcsHash(sent));
      });
      const read = await call(
        t.baseUrl,
        'GET',
        `/documents/${documentId}/external-revisions/${res.body.revisionId}`,
        { auth: caller.auth },
      );
      expect(canonicalize(read.body.content)).toBe(canonicalize(sent));
    }
  });

  it('tells an Idempotency-Key replay from a body that differs only by such a key (409)', async () => {
    for (const name of ['constructor', '__proto__x', 'toString', 'prototype', 'call']) {
      const key = `fidelity-${name}`;
      const first = await stageRaw('{"content":{"a":1}}', { 'idempotency-key': key });
      expect(first.status).toBe(201);
      const again = await stageRaw('{"content":{"a":1}}', { 'idempotency-key': key });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      for (const body of [
        `{"content":{"a":1,${JSON.stringify(name)}:1}}`,
        `{"content":{"a":{${JSON.stringify(name)}:{}}}}`,
      ]) {
        const other = await stageRaw(body, { 'idempotency-key': key });
        withMessage(`${body} → ${other.status} ${other.text}`, () => {
          expect(other.status).toBe(409);
          expect(other.body.code).toBe('idempotency_key_reused');
        });
      }
    }
  });
});

describe('top-level fields named like built-in members are unknown fields (400)', () => {
  it('refuses them on every JSON body, writing nothing', async () => {
    const webhook = await createWebhook(t.baseUrl, caller.auth, 'https://example.com/existing');
    const bodies: Array<{ path: string; body: Record<string, unknown> }> = [
      { path: `/documents/${documentId}/external-revisions`, body: { content: { a: 1 } } },
      {
        path: '/webhooks',
        body: { name: 'hook', endpoint_url: 'https://example.com/hook', events: ['*'] },
      },
      { path: `/webhooks/${webhook.webhookId}/status`, body: { status: 'paused' } },
      { path: `/documents/${documentId}/checkout`, body: { ttl_minutes: 5 } },
      { path: `/documents/${documentId}/checkin`, body: { lock_token: `glk_${'a'.repeat(49)}` } },
    ];
    for (const { path, body } of bodies) {
      for (const name of BUILT_IN_NAMES) {
        if (Object.hasOwn(body, name)) continue; // a declared field (`name` of a webhook)
        for (const value of ['x', 1, {}, null]) {
          const text = JSON.stringify(objectOf([...Object.entries(body), [name, value]]));
          const res = await call(t.baseUrl, 'POST', path, {
            auth: caller.auth,
            rawBody: text,
            headers: { 'content-type': 'application/json' },
          });
          withMessage(`POST ${path} ${text} → ${res.status} ${res.text}`, () => {
            expect(res.status).toBe(400);
            expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(res.body.code).toBe('validation_failed');
            expect(res.body.errors).toContainEqual({ field: name, message: 'should not exist' });
          });
        }
      }
    }
    // nothing was staged, paused, created or locked on the way
    const revisions = await call(t.baseUrl, 'GET', `/documents/${documentId}/external-revisions`, {
      auth: caller.auth,
    });
    const before = revisions.body.data.length as number;
    const hooks = await call(t.baseUrl, 'GET', '/webhooks', { auth: caller.auth });
    expect(hooks.body.data).toHaveLength(1);
    expect(hooks.body.data[0].status).toBe('active');
    const checkout = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
      auth: caller.auth,
      body: {},
    });
    expect(checkout.status).toBe(201);
    await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
      auth: caller.auth,
      body: { lock_token: checkout.body.lock_token },
    });
    const after = await call(t.baseUrl, 'GET', `/documents/${documentId}/external-revisions`, {
      auth: caller.auth,
    });
    expect(after.body.data).toHaveLength(before);
  });
});

/** Whether the decimal `spelled` is exactly the decimal JSON.stringify writes for `value`. */
function keptAsSent(spelled: string, value: number): boolean {
  const asInteger = (text: string): [bigint, number] => {
    const [mantissa, exponent = '0'] = text.toLowerCase().split('e');
    const [whole, fraction = ''] = mantissa!.split('.');
    return [BigInt(`${whole}${fraction}`), Number(exponent) - fraction.length];
  };
  const [a, ea] = asInteger(spelled);
  const [b, eb] = asInteger(JSON.stringify(value));
  // compare a·10^ea with b·10^eb exactly
  const shift = ea - eb;
  return shift >= 0 ? a * 10n ** BigInt(shift) === b : a === b * 10n ** BigInt(-shift);
}
