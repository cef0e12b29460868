import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { type ApiResponse, call } from './support/http.js';
import { checkAgainstDocument } from './support/openapi-check.js';
import {
  Coverage,
  declaredPaths,
  type JsonGet,
  jsonGetOperations,
  shapeOf,
} from './support/response-coverage.js';
import { type Binding, type ShapeSeed, seedShapes } from './support/shape-seed.js';
import { type Receiver, startReceiver } from './support/webhook-factories.js';

/**
 * Issue 38 item 2: the DTO is the definition of a response's shape; much of the JSON is built in
 * SQL (`jsonObjectText`, the `summary_json`/`index_json` triggers), so a field added to a DTO and
 * not to its SQL must fail a test. Every GET with a JSON 200 in either document (read from the
 * files: a new list or read is covered as it is published) is called on a tenant seeded so that
 * every property has a value somewhere; each property the 200 schema declares, at any depth, must
 * then have appeared, and with a value other than `null` or `[]` at least once. The other way
 * round, a property the schema does not declare, fails `call()`'s closed-schema check.
 */

type Json = Record<string, any>;

/**
 * GET operations with a JSON 200 answer that this file does not call, and why. None so far: the
 * event feed's stream (`text/event-stream`, the same operation as its JSON page, which is called
 * here) is checked in platform-events.e2e-spec.ts; `/health` and `/metrics` are in neither
 * document; no content download is a GET of either.
 */
const EXCLUDED: Record<string, string> = {};

/** Declared properties no seed can fill, by operation, and why. */
const UNFILLABLE: Record<string, Record<string, string>> = {
  Events_list: {
    // the event of a candidate that did not become a version has no resulting version
    '$.data[]<external_revision.staged>.data.resulting_version_id': 'staged: no version yet',
    '$.data[]<external_revision.rejected>.data.resulting_version_id': 'rejected: never a version',
    '$.data[]<external_revision.superseded>.data.resulting_version_id': 'superseded: never one',
  },
};

/** Pages of a list walked through its cursor, at most (a feed always has a next cursor). */
const MAX_PAGES = 30;

const WORKER_ENV = {
  WORKERS_ENABLED: 'true',
  // a failed delivery stays in `retry`, its error and the answer's excerpt recorded
  WEBHOOK_RETRY_SCHEDULE: '1h',
  WEBHOOK_TIMEOUT_MS: '2000',
  RATE_LIMIT_API_PER_MINUTE: '1000000',
};

const OPERATIONS = jsonGetOperations();
const shapes = new Map(OPERATIONS.map((op) => [op.operationId, shapeOf(op.api.doc, op.schema)]));
const coverage = new Map(
  OPERATIONS.map((op) => [op.operationId, new Coverage(shapes.get(op.operationId)!)]),
);
const answers = new Map<string, ApiResponse[]>(OPERATIONS.map((op) => [op.operationId, []]));
/** Why an operation was not called: a path parameter no binding names. */
const unbound = new Map<string, string>();

const queryParams = (op: JsonGet): Json[] =>
  ((op.operation.parameters ?? []) as Json[]).filter((p) => p.in === 'query');

/** No filter, then each value of each query parameter that is an enum (a list's filters). */
function filtersOf(op: JsonGet): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [{}];
  for (const p of queryParams(op)) {
    const values = (p.schema?.enum ?? p.schema?.items?.enum ?? []) as unknown[];
    for (const v of values) out.push({ [p.name]: String(v) });
  }
  return out;
}

/** The operation's path filled by each binding that names all its parameters, once each. */
function pathsOf(op: JsonGet, bindings: readonly Binding[]): string[] {
  const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const paths = new Set<string>();
  for (const b of bindings) {
    if (names.every((n) => n in b)) {
      paths.add(op.template.replace(/\{([^}]+)\}/g, (_, n: string) => String(b[n])));
    }
  }
  if (paths.size === 0) unbound.set(op.operationId, `no binding names all of ${names.join(', ')}`);
  return [...paths];
}

describe('response shapes: every declared property of every list and read appears', () => {
  let t: TestApp;
  let receiver: Receiver;
  let seed: ShapeSeed;

  async function get(op: JsonGet, path: string): Promise<ApiResponse> {
    const platform = op.api.name === 'platform';
    const base = platform ? t.platformUrl : t.baseUrl;
    const auth = platform ? seed.key.auth : seed.caller.auth;
    const res = await call(base, 'GET', `${base}${path}`, { auth });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    answers.get(op.operationId)!.push(res);
    coverage.get(op.operationId)!.observe(res.body);
    return res;
  }

  /** One page of one (a next cursor, offsets), then every page in the default size. */
  async function read(op: JsonGet, path: string, filter: Record<string, string>): Promise<void> {
    const params = queryParams(op).map((p) => String(p.name));
    const url = (extra: Record<string, string> = {}) => {
      const query = new URLSearchParams({ ...filter, ...extra }).toString();
      return query ? `${path}?${query}` : path;
    };
    if (params.includes('limit')) await get(op, url({ limit: '1' }));
    const cursorParam = params.find((p) => p === 'cursor' || p === 'after');
    let res = await get(op, url());
    for (let page = 1; page < MAX_PAGES && cursorParam; page++) {
      const body = res.body as Json;
      const next = (body.next_cursor ?? body.page?.next_cursor) as string | null | undefined;
      if (!next || (Array.isArray(body.data) && body.data.length === 0)) break;
      res = await get(op, url({ [cursorParam]: next }));
    }
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(WORKER_ENV);
    seed = await seedShapes(t, receiver);
    for (const op of OPERATIONS) {
      if (op.operationId in EXCLUDED) continue;
      for (const path of pathsOf(op, seed.bindings)) {
        for (const filter of filtersOf(op)) await read(op, path, filter);
      }
    }
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('reads its operations from both documents; each is called or excluded with a reason', () => {
    const ids = OPERATIONS.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(OPERATIONS.map((op) => op.api.name))).toEqual(
      new Set(['integration', 'platform']),
    );
    for (const id of [...Object.keys(EXCLUDED), ...Object.keys(UNFILLABLE)]) {
      expect(ids).toContain(id);
    }
    const uncalled = OPERATIONS.filter(
      (op) => !(op.operationId in EXCLUDED) && answers.get(op.operationId)!.length === 0,
    ).map((op) => `${op.operationId}: ${unbound.get(op.operationId) ?? 'not called'}`);
    expect(uncalled).toEqual([]);
  });

  it('every property a 200 schema declares appeared, with a value, in some answer', () => {
    const problems: string[] = [];
    for (const op of OPERATIONS) {
      const id = op.operationId;
      if (id in EXCLUDED) continue;
      const cov = coverage.get(id)!;
      const allowed = UNFILLABLE[id] ?? {};
      for (const p of cov.missing()) problems.push(`${id}: ${p} never appeared`);
      for (const p of cov.neverFilled()) {
        if (!(p in allowed)) problems.push(`${id}: ${p} only ever null or []`);
      }
      for (const p of cov.undeclared) problems.push(`${id}: ${p} is not declared`);
      // an allowance that no longer holds is dropped, not kept "just in case"
      const declared = new Set(declaredPaths(cov.shape));
      for (const p of Object.keys(allowed)) {
        if (!declared.has(p) || cov.filled.has(p)) problems.push(`${id}: ${p} needs no allowance`);
      }
    }
    expect(problems).toEqual([]);
  });

  describe('planted', () => {
    const LIST = 'Webhooks_list';
    const op = OPERATIONS.find((o) => o.operationId === LIST)!;

    it('a property added to a list item schema (as to its DTO) is reported missing', () => {
      const doc = structuredClone(op.api.doc);
      const listRef = String(op.schema.$ref).split('/').pop()!;
      const itemRef = String(doc.components.schemas[listRef].properties.data.items.$ref);
      const item = doc.components.schemas[itemRef.split('/').pop()!];
      item.properties.colour = { type: 'string' };
      item.required.push('colour');
      const planted = new Coverage(shapeOf(doc, op.schema));
      for (const res of answers.get(LIST)!) planted.observe(res.body);
      expect(answers.get(LIST)!.length).toBeGreaterThan(0);
      expect(planted.missing()).toEqual(['$.data[].colour']);
      expect(coverage.get(LIST)!.missing()).toEqual([]);
    });

    it('a property always null in the answers is reported never filled', () => {
      const cov = new Coverage(shapes.get(LIST)!);
      for (const res of answers.get(LIST)!) {
        const body = structuredClone(res.body) as { data: Json[] };
        for (const w of body.data) w.status_reason = null;
        cov.observe(body);
      }
      expect(cov.missing()).toEqual([]);
      expect(cov.neverFilled()).toEqual(['$.data[].status_reason']);
    });

    it('a property an answer carries and its schema does not declare is reported', () => {
      const res = answers.get(LIST)![0]!;
      const body = structuredClone(res.body) as { data: Json[] };
      expect(body.data.length).toBeGreaterThan(0);
      body.data[0]!.colour = 'red';
      expect([...new Coverage(shapes.get(LIST)!).observe(body).undeclared]).toEqual([
        '$.data[].colour',
      ]);
      // and `call()`'s check refuses the answer
      const text = JSON.stringify(body);
      const exchange = {
        method: 'GET',
        url: `${t.baseUrl}/api/v1/webhooks`,
        requestBody: undefined,
      };
      expect(() =>
        checkAgainstDocument({ ...exchange, status: 200, headers: res.headers, body, text }),
      ).toThrow(/200 body does not match its schema/);
    });
  });
});
