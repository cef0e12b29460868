import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { jsonObjectText, jsonValue } from '../src/common/database/sql-json.js';
import { JsonText } from '../src/common/http/json-text.js';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call, type ApiResponse } from './support/http.js';
import { addProjectFile, createDocument, createProject } from './support/read-factories.js';
import { createPlatformVersion, stage } from './support/revision-factories.js';
import { createWebhook, publishEvents } from './support/webhook-factories.js';

/**
 * docs/integrators/paging.md: every list is bounded (`limit`) and walked with an opaque `cursor`
 * bound to its tenant and its list. The order each list is walked in, which these tests hold it to:
 * ascending id (projects, documents, files, candidate revisions, webhooks), ascending version
 * number (a document's versions), descending id, newest first (webhook deliveries).
 */
jest.setTimeout(180_000);

type Order = 'asc' | 'desc';

interface ListCase {
  name: string;
  path: () => string;
  /** The id of one item of `data`. */
  key: string;
  order: Order;
  /** Largest `limit` the list takes. */
  maxLimit: number;
  /** Adds one row to the list; answers its key. */
  insert: () => Promise<number>;
  /** `page.next_cursor` (GET /projects) or `next_cursor`. */
  nextOf?: (body: any) => string | null;
  /** The members of an item, in the order the API has always written them. */
  members: string[];
}

const nextCursor = (body: any): string | null => body.next_cursor as string | null;

function withQuery(path: string, query: Record<string, string | number>): string {
  const q = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  );
  return `${path}?${q.toString()}`;
}

describe('lists: bounded pages walked by cursor', () => {
  let t: TestApp;
  let a: TestCaller;
  let b: TestCaller;
  let db: DataSource;
  let projectId: number;
  let otherProjectId: number;
  let documentId: number;
  let revisionDocumentId: number;
  const cases: ListCase[] = [];

  async function get(path: string, caller: TestCaller = a): Promise<ApiResponse> {
    return call(t.baseUrl, 'GET', path, { auth: caller.auth });
  }

  /** Walks a list to its end with `limit`, running `between` after every page. */
  async function walk(
    c: ListCase,
    limit: number,
    between: () => Promise<void> = async () => undefined,
  ): Promise<{ keys: number[]; pages: number }> {
    const keys: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit };
      if (cursor) query['cursor'] = cursor;
      const res = await get(withQuery(c.path(), query));
      withMessage(`${c.name} page ${pages + 1}: ${res.text}`, () => expect(res.status).toBe(200));
      const data = res.body.data as Array<Record<string, number>>;
      expect(data.length).toBeLessThanOrEqual(limit);
      keys.push(...data.map((item) => item[c.key]!));
      cursor = (c.nextOf ?? nextCursor)(res.body);
      // a page that says there is more is full; the last page says so with null
      if (cursor !== null) expect(data).toHaveLength(limit);
      pages += 1;
      await between();
    } while (cursor !== null && pages < 1000);
    return { keys, pages };
  }

  const sorted = (keys: number[], order: Order): number[] =>
    [...keys].sort((x, y) => (order === 'asc' ? x - y : y - x));

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_API_PER_MINUTE: '1000000' });
    db = t.app.get(DataSource);
    a = await createCaller(t.app, { plan: 'enterprise' });
    b = await createCaller(t.app, { plan: 'enterprise' });
    // tenant B's rows interleave with A's, so neither tenant owns a contiguous id range
    const webhookUrl = 'https://example.invalid/hook';
    await createWebhook(t.baseUrl, b.auth, webhookUrl);
    projectId = await createProject(t.app, a.tenantId);
    otherProjectId = await createProject(t.app, a.tenantId);
    documentId = (await createDocument(t.app, a.tenantId, projectId, { versions: 3 })).documentId;
    revisionDocumentId = (await createDocument(t.app, a.tenantId, otherProjectId)).documentId;
    const bProject = await createProject(t.app, b.tenantId);
    await createDocument(t.app, b.tenantId, bProject);

    cases.push(
      {
        name: 'GET /projects',
        path: () => '/projects',
        key: 'projectId',
        order: 'asc',
        maxLimit: 100,
        insert: () => createProject(t.app, a.tenantId),
        nextOf: (body) => body.page.next_cursor as string | null,
        members: ['projectId', 'name', 'description', 'status', 'created_at', 'updated_at'],
      },
      {
        name: 'GET /projects/{projectId}/documents',
        path: () => `/projects/${projectId}/documents`,
        key: 'documentId',
        order: 'asc',
        maxLimit: 1000,
        insert: async () => (await createDocument(t.app, a.tenantId, projectId)).documentId,
        members: [
          'documentId',
          'projectId',
          'title',
          'status',
          'current_version_id',
          'created_at',
          'updated_at',
        ],
      },
      {
        name: 'GET /projects/{projectId}/files',
        path: () => `/projects/${projectId}/files`,
        key: 'fileId',
        order: 'asc',
        maxLimit: 1000,
        insert: () => addProjectFile(t.app, a.tenantId, projectId),
        members: [
          'fileId',
          'name',
          'media_type',
          'size_bytes',
          'sha256',
          'created_at',
          'updated_at',
        ],
      },
      {
        name: 'GET /documents/{documentId}/versions',
        path: () => `/documents/${documentId}/versions`,
        key: 'number',
        order: 'asc',
        maxLimit: 1000,
        insert: async () => {
          await createPlatformVersion(t.app, a.tenantId, documentId, { n: Math.random() });
          const [row]: Array<{ n: number }> = await db.query(
            `SELECT max(number) AS n FROM document_versions WHERE document_id = $1`,
            [documentId],
          );
          return row!.n;
        },
        members: ['versionId', 'number', 'content_hash', 'created_at', 'source'],
      },
      {
        name: 'GET /documents/{documentId}/external-revisions',
        path: () => `/documents/${revisionDocumentId}/external-revisions`,
        key: 'revisionId',
        order: 'asc',
        maxLimit: 1000,
        insert: async () => {
          const res = await stage(t.baseUrl, a.auth, revisionDocumentId, { content: { n: 1 } });
          expect(res.status).toBe(201);
          return res.body.revisionId as number;
        },
        members: [
          'revisionId',
          'documentId',
          'base_version_id',
          'status',
          'content_hash',
          'source_reference',
          'created_at',
          'decided_at',
          'decided_by',
          'resulting_version_id',
          'decision_note',
        ],
      },
      {
        name: 'GET /webhooks',
        path: () => '/webhooks',
        key: 'webhookId',
        order: 'asc',
        maxLimit: 1000,
        insert: async () => (await createWebhook(t.baseUrl, a.auth, webhookUrl)).webhookId,
        members: [
          'webhookId',
          'name',
          'endpoint_url',
          'events',
          'status',
          'status_reason',
          'created_at',
          'updated_at',
        ],
      },
      {
        name: 'GET /webhook-deliveries',
        path: () => '/webhook-deliveries',
        key: 'deliveryId',
        order: 'desc',
        maxLimit: 100,
        insert: async () => {
          await publishEvents(t.app, a.tenantId, 1);
          const [row]: Array<{ id: string }> = await db.query(
            `SELECT max(id) AS id FROM webhook_deliveries WHERE tenant_id = $1`,
            [a.tenantId],
          );
          return Number(row!.id);
        },
        members: [
          'deliveryId',
          'webhookId',
          'event_id',
          'event_type',
          'status',
          'attempts',
          'last_attempt_at',
          'next_attempt_at',
          'last_response_status',
          'last_error',
          'created_at',
        ],
      },
    );
    // at least 11 rows in each list, tenant B's rows created in between
    for (const c of cases) {
      let n = 0;
      while ((await walk(c, c.maxLimit)).keys.length < 11) {
        await c.insert();
        if (n++ % 4 === 0) await createProject(t.app, b.tenantId);
      }
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('covers every cursor-paged route of the OpenAPI document', async () => {
    const doc = (await get('/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
    };
    const withCursor = Object.entries(doc.paths)
      .filter(([, ops]) =>
        ops['get']?.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'),
      )
      .map(([path]) => path.replace('/api/v1', ''))
      .sort();
    expect(withCursor).toEqual(cases.map((c) => c.name.replace('GET ', '')).sort());
  });

  it('walks every list in its stated order, each row exactly once, rows inserted between pages', async () => {
    for (const c of cases) {
      // other lists' inserts add rows too (stagings and versions publish deliveries)
      const before = (await walk(c, c.maxLimit)).keys;
      expect(before.length).toBeGreaterThanOrEqual(11);
      const inserted: number[] = [];
      const { keys, pages } = await walk(c, 3, async () => {
        inserted.push(await c.insert());
      });
      withMessage(`${c.name}: ${JSON.stringify({ keys, before, inserted })}`, () => {
        expect(pages).toBeGreaterThanOrEqual(4);
        // in the stated order, no row twice
        expect(keys).toEqual(sorted(keys, c.order));
        expect(new Set(keys).size).toBe(keys.length);
        // every row that existed when the walk began, exactly once
        for (const key of before) expect(keys.filter((k) => k === key)).toHaveLength(1);
        if (c.order === 'asc') {
          // newer rows sort after the cursor: the walk reaches each one inserted before its end
          // (the last one was inserted after the last page)
          expect(keys).toEqual(sorted([...before, ...inserted.slice(0, -1)], 'asc'));
        } else {
          // newest first: rows inserted meanwhile sort before the cursor and are not revisited
          expect(keys).toEqual(before);
        }
      });
    }
  });

  it('visits every row once while other connections insert concurrently', async () => {
    for (const c of cases.filter((x) => x.name !== 'GET /documents/{documentId}/versions')) {
      // other lists' inserts add rows too (stagings and versions publish deliveries)
      const before = (await walk(c, c.maxLimit)).keys;
      let inserting = true;
      const inserter = (async () => {
        let n = 0;
        while (inserting && n < 8) {
          await c.insert();
          n += 1;
        }
      })();
      const { keys } = await walk(c, 2);
      inserting = false;
      await inserter;
      withMessage(`${c.name}: ${JSON.stringify({ keys, before })}`, () => {
        expect(keys).toEqual(sorted(keys, c.order));
        expect(new Set(keys).size).toBe(keys.length);
        for (const key of before) expect(keys).toContain(key);
      });
    }
  });

  it('a whole list under its limit is one page with next_cursor null (what a client reading only data gets)', async () => {
    for (const c of cases) {
      const all = (await walk(c, c.maxLimit)).keys;
      const res = await get(c.path());
      expect(res.status).toBe(200);
      const keys = (res.body.data as Array<Record<string, number>>).map((x) => x[c.key]);
      if (all.length <= (c.maxLimit === 100 ? 50 : 1000)) {
        withMessage(c.name, () => expect(keys).toEqual(all));
        expect((c.nextOf ?? nextCursor)(res.body)).toBeNull();
      }
    }
  });

  it('refuses limits outside the range with 400, never clamped, and takes the bounds', async () => {
    for (const c of cases) {
      for (const limit of ['0', '-1', String(c.maxLimit + 1), '1.5', 'abc', '1e3', '']) {
        const res = await get(`${c.path()}?limit=${encodeURIComponent(limit)}`);
        withMessage(`${c.name} limit=${limit}`, () => {
          expect(res.status).toBe(400);
          expect(res.body.code).toBe('validation_failed');
        });
      }
      for (const limit of [1, c.maxLimit]) {
        const res = await get(`${c.path()}?limit=${limit}`);
        withMessage(`${c.name} limit=${limit}`, () => expect(res.status).toBe(200));
        expect((res.body.data as unknown[]).length).toBeLessThanOrEqual(limit);
      }
    }
  });

  it('refuses malformed, edited, foreign-list and foreign-tenant cursors alike with 400 validation_failed', async () => {
    const cursorOf = async (c: ListCase, caller: TestCaller = a): Promise<string> => {
      const res = await get(withQuery(c.path(), { limit: 1 }), caller);
      const cursor = (c.nextOf ?? nextCursor)(res.body);
      if (!cursor) throw new Error(`${c.name}: no cursor`);
      return cursor;
    };
    const refused = async (path: string, cursor: string, caller: TestCaller = a) => {
      const res = await get(withQuery(path, { cursor }), caller);
      withMessage(`${path} cursor=${cursor}: ${res.text}`, () => {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
        expect(JSON.stringify(res.body)).toContain('cursor');
      });
      return { status: res.status, errors: res.body.errors };
    };
    const edit = (cursor: string, change: (payload: unknown[]) => unknown[]): string =>
      Buffer.from(
        JSON.stringify(change(JSON.parse(Buffer.from(cursor, 'base64url').toString()))),
      ).toString('base64url');

    for (const c of cases) {
      const own = await cursorOf(c);
      // its own cursor works
      expect((await get(withQuery(c.path(), { cursor: own }))).status).toBe(200);
      const malformed = await refused(c.path(), 'not-a-cursor!');
      for (const bad of ['x', 'e30', 'W10', own.slice(0, -3), `${own}x`, 'A'.repeat(600)]) {
        expect(await refused(c.path(), bad)).toEqual(malformed);
      }
      // the same list of another tenant: the cursor is refused, whatever the ids in it
      expect(await refused(c.path(), own, b)).toEqual(malformed);
      // an edited key of the wrong type
      expect(
        await refused(
          c.path(),
          edit(own, (p) => [...p.slice(0, 4), ['1']]),
        ),
      ).toEqual(malformed);
      // every other list of the same tenant refuses it
      for (const other of cases.filter((x) => x !== c)) {
        expect(await refused(other.path(), own)).toEqual(malformed);
      }
    }
    // the same list bound to another parent: documents of another project
    const docsCursor = await cursorOf(cases[1]!);
    await refused(`/projects/${otherProjectId}/documents`, docsCursor);
  });

  it('GET /projects: offset and cursor together are refused; a cursor page reports offset null', async () => {
    const first = await get('/projects?limit=2');
    const cursor = first.body.page.next_cursor as string;
    expect(typeof cursor).toBe('string');
    const both = await get(withQuery('/projects', { limit: 2, offset: 2, cursor }));
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('validation_failed');
    const next = await get(withQuery('/projects', { limit: 2, cursor }));
    expect(next.status).toBe(200);
    expect(next.body.page).toMatchObject({ limit: 2, offset: null });
    // the cursor page is the offset page at 2
    const byOffset = await get('/projects?limit=2&offset=2');
    expect(next.body.data).toEqual(byOffset.body.data);
    expect(next.body.page.total).toBe(byOffset.body.page.total);
  });

  it('GET /projects: page.total equals the rows under concurrent creates and deletes', async () => {
    const count = async (): Promise<number> => {
      const [row]: Array<{ n: number }> = await db.query(
        `SELECT count(*)::int AS n FROM projects WHERE tenant_id = $1`,
        [a.tenantId],
      );
      return row!.n;
    };
    const total = async (): Promise<number> =>
      (await get('/projects?limit=1')).body.page.total as number;
    expect(await total()).toBe(await count());

    // projects with no documents or files can be deleted (as the platform would)
    const spare = await Promise.all(
      Array.from({ length: 12 }, () => createProject(t.app, a.tenantId)),
    );
    const reads: number[] = [];
    await Promise.all([
      // 30 concurrent creates, each its own transaction on its own connection
      ...Array.from({ length: 30 }, () => createProject(t.app, a.tenantId)),
      // and deletes, one row or several per statement, in transactions of the app role
      ...spare.map((id, i) =>
        i % 3 === 0
          ? db.query(`DELETE FROM projects WHERE id = ANY($1)`, [spare.slice(i, i + 2)])
          : db.query(`DELETE FROM projects WHERE id = $1`, [id]),
      ),
      // a rolled-back create leaves the count alone
      db
        .transaction(async (m) => {
          await m.query(`INSERT INTO projects (tenant_id, name) VALUES ($1, 'rolled back')`, [
            a.tenantId,
          ]);
          throw new Error('roll back');
        })
        .catch(() => undefined),
      ...Array.from({ length: 5 }, async () => reads.push(await total())),
    ]);
    expect(await total()).toBe(await count());
    // B's count never moved with A's
    const bTotal = (await get('/projects?limit=1', b)).body.page.total as number;
    const [bRow]: Array<{ n: number }> = await db.query(
      `SELECT count(*)::int AS n FROM projects WHERE tenant_id = $1`,
      [b.tenantId],
    );
    expect(bTotal).toBe(bRow!.n);
    for (const r of reads) expect(r).toBeGreaterThan(0);
  });

  it('GET /projects: the total is read from the counter, not counted per request', async () => {
    // the counter is the source of the total: a count that disagreed with it would show
    const before = (await get('/projects?limit=1')).body.page.total as number;
    await db.query(
      `UPDATE project_counts SET total = total + 1000 WHERE tenant_id = $1 AND slot = (
         SELECT min(slot) FROM project_counts WHERE tenant_id = $1)`,
      [a.tenantId],
    );
    try {
      expect((await get('/projects?limit=1')).body.page.total).toBe(before + 1000);
    } finally {
      await db.query(
        `UPDATE project_counts SET total = total - 1000 WHERE tenant_id = $1 AND slot = (
           SELECT min(slot) FROM project_counts WHERE tenant_id = $1)`,
        [a.tenantId],
      );
    }
  });

  it('GET /documents/{id}: the version index stops at 1000 and versions_next_cursor continues it', async () => {
    const project = await createProject(t.app, a.tenantId);
    const small = await createDocument(t.app, a.tenantId, project, { versions: 2 });
    const smallRead = await get(`/documents/${small.documentId}`);
    expect(smallRead.body.versions).toHaveLength(2);
    expect(smallRead.body.versions_next_cursor).toBeNull();

    const big = await createDocument(t.app, a.tenantId, project);
    // 1,004 versions in all, written in bulk (the versions themselves are what is read)
    await db.query(
      `INSERT INTO document_versions (tenant_id, document_id, number, content, content_hash, source)
       SELECT $1, $2, n, jsonb_build_object('n', n), lpad(to_hex(n), 64, '0'), 'platform'
         FROM generate_series(2, 1004) n`,
      [a.tenantId, big.documentId],
    );
    const read = await get(`/documents/${big.documentId}`);
    expect(read.status).toBe(200);
    const numbers = (read.body.versions as Array<{ number: number }>).map((v) => v.number);
    expect(numbers).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    const cursor = read.body.versions_next_cursor as string;
    expect(typeof cursor).toBe('string');
    const rest = await get(withQuery(`/documents/${big.documentId}/versions`, { cursor }));
    expect(rest.status).toBe(200);
    expect((rest.body.data as Array<{ number: number }>).map((v) => v.number)).toEqual([
      1001, 1002, 1003, 1004,
    ]);
    expect(rest.body.next_cursor).toBeNull();
    // the index entries are the same in both
    const page = await get(`/documents/${big.documentId}/versions?limit=1000`);
    expect(page.body.data).toEqual(read.body.versions);
    expect(page.body.next_cursor).toBe(cursor);
    // exactly 1000: a whole index, no cursor
    await db.query(`DELETE FROM document_versions WHERE document_id = $1 AND number > 1000`, [
      big.documentId,
    ]);
    const whole = await get(`/documents/${big.documentId}`);
    expect(whole.body.versions).toHaveLength(1000);
    expect(whole.body.versions_next_cursor).toBeNull();
  });

  it('sends each page as the text JSON.stringify writes for it: compact, members in their order, text exactly as stored', async () => {
    // what a client may have stored in the tables no worker rewrites, all JSON has to escape
    const odd = 'q " b \\ c \u0001\u001f\b\f\n\r\t del \u007f ls \u2028\u2029 😀 é 中 </x>&';
    const oddProject = await createProject(t.app, a.tenantId);
    const oddDocument = (await createDocument(t.app, a.tenantId, oddProject)).documentId;
    await addProjectFile(t.app, a.tenantId, oddProject);
    await db.query(`UPDATE projects SET name = $2, description = $2 WHERE id = $1`, [
      oddProject,
      odd,
    ]);
    await db.query(`UPDATE documents SET title = $2 WHERE id = $1`, [oddDocument, odd]);
    await db.query(`UPDATE project_files SET name = $2 WHERE project_id = $1`, [oddProject, odd]);
    await db.query(
      `UPDATE external_revisions SET source_reference = $2, decision_note = $2
        WHERE id = (SELECT min(id) FROM external_revisions WHERE document_id = $1)`,
      [revisionDocumentId, odd],
    );
    await db.query(
      `UPDATE webhooks SET name = $2 WHERE id = (SELECT min(id) FROM webhooks WHERE tenant_id = $1)`,
      [a.tenantId, odd],
    );
    const byName = (name: string): ListCase => cases.find((x) => x.name === name)!;
    // the odd project is the newest: the last of the ascending list
    const total = (await get('/projects?limit=1')).body.page.total as number;
    const pages: Array<[string, ListCase]> = [
      ...cases.map((c): [string, ListCase] => [c.path(), c]),
      [`/projects/${oddProject}/documents`, byName('GET /projects/{projectId}/documents')],
      [`/projects/${oddProject}/documents?limit=1`, byName('GET /projects/{projectId}/documents')],
      [`/projects/${oddProject}/files`, byName('GET /projects/{projectId}/files')],
      [`/projects?limit=3&offset=${total - 3}`, byName('GET /projects')],
    ];
    const seen = new Set<string>();
    for (const [path, c] of pages) {
      const res = await get(path);
      withMessage(`${path}: ${res.text}`, () => {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
        // what JSON.stringify writes for the value the text encodes: no whitespace, its escapes
        expect(res.text).toBe(JSON.stringify(res.body));
        expect(Object.keys(res.body)).toEqual(
          c.name === 'GET /projects' ? ['data', 'page'] : ['data', 'next_cursor'],
        );
        const data = res.body.data as Array<Record<string, unknown>>;
        expect(data.length).toBeGreaterThan(0);
        for (const item of data) expect(Object.keys(item)).toEqual(c.members);
        for (const item of data) {
          if (Object.values(item).includes(odd)) seen.add(c.name);
        }
      });
    }
    // the document read is built the same way
    const read = await get(`/documents/${oddDocument}`);
    withMessage(read.text, () => {
      expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(read.text).toBe(JSON.stringify(read.body));
      expect(Object.keys(read.body)).toEqual([
        ...byName('GET /projects/{projectId}/documents').members,
        'versions',
        'versions_next_cursor',
      ]);
      expect(read.body.title).toBe(odd);
      for (const entry of read.body.versions as Array<Record<string, unknown>>) {
        expect(Object.keys(entry)).toEqual(byName('GET /documents/{documentId}/versions').members);
      }
    });
    // the odd text came back exactly as stored from every list it was put in
    for (const list of [
      'GET /projects',
      'GET /projects/{projectId}/documents',
      'GET /projects/{projectId}/files',
      'GET /documents/{documentId}/external-revisions',
      'GET /webhooks',
    ]) {
      withMessage(`${list}: ${[...seen].join(', ')}`, () => expect(seen.has(list)).toBe(true));
    }
  });

  it("a project's documents page follows every write to a document (its stored summary_json)", async () => {
    const p = await createProject(t.app, a.tenantId);
    const { documentId: d } = await createDocument(t.app, a.tenantId, p, { title: 'before' });
    // the list item is the document read without its version index, member for member
    const agrees = async (step: string): Promise<void> => {
      const list = await get(`/projects/${p}/documents`);
      const read = await get(`/documents/${d}`);
      const summary = { ...(read.body as Record<string, unknown>) };
      delete summary['versions'];
      delete summary['versions_next_cursor'];
      withMessage(`${step}: ${list.text}`, () => {
        expect(list.status).toBe(200);
        expect(list.body.data).toEqual([summary]);
        expect(JSON.stringify(list.body.data[0])).toBe(JSON.stringify(summary));
      });
    };
    await agrees('created');
    const before = (await get(`/documents/${d}`)).body as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const versionId = await createPlatformVersion(t.app, a.tenantId, d);
    await agrees('new version');
    const after = (await get(`/projects/${p}/documents`)).body.data[0] as Record<string, unknown>;
    expect(after['current_version_id']).toBe(versionId);
    expect(after['updated_at']).not.toBe(before['updated_at']);
    await db.query(`UPDATE documents SET title = $2, status = 'archived' WHERE id = $1`, [
      d,
      'after',
    ]);
    await agrees('title and status changed by SQL');
  });

  it('the projects page follows every write to a project (its stored summary_json)', async () => {
    const caller = await createCaller(t.app);
    const p = await createProject(t.app, caller.tenantId, { name: 'before' });
    const as = { auth: caller.auth };
    // the list item is the project's own read, member for member and byte for byte
    const agrees = async (step: string): Promise<void> => {
      const list = await call(t.baseUrl, 'GET', '/projects', as);
      const read = await call(t.baseUrl, 'GET', `/projects/${p}`, as);
      withMessage(`${step}: ${list.text} ${read.text}`, () => {
        expect(list.status).toBe(200);
        expect(read.status).toBe(200);
        expect(list.body.data).toEqual([read.body]);
        expect(JSON.stringify(list.body.data[0])).toBe(read.text);
      });
    };
    await agrees('created');
    await db.query(
      `UPDATE projects SET name = $2, description = $3, status = 'archived',
              updated_at = '2026-01-02 03:04:05.678901+00' WHERE id = $1`,
      [p, 'after "q" \\ \u2028 中😀', 'line\nbreak \u0001'],
    );
    await agrees('name, description, status and updated_at changed by SQL');
    const after = (await call(t.baseUrl, 'GET', '/projects', as)).body.data[0];
    // microseconds are cut to milliseconds as the driver's Date cuts them
    expect(after).toMatchObject({
      name: 'after "q" \\ \u2028 中😀',
      description: 'line\nbreak \u0001',
      status: 'archived',
      updated_at: '2026-01-02T03:04:05.678Z',
    });
  });

  it("a document's version index follows every write to a version (its stored index_json)", async () => {
    const p = await createProject(t.app, a.tenantId);
    const { documentId: d } = await createDocument(t.app, a.tenantId, p, { title: 'versions' });
    await createPlatformVersion(t.app, a.tenantId, d);
    await createPlatformVersion(t.app, a.tenantId, d);
    // version 1, made with the document
    const first = (await get(`/documents/${d}`)).body.versions[0].versionId as number;
    // each entry as the row's columns give it, written as JSON.stringify writes the API's object
    const expected = async (): Promise<string[]> => {
      const rows: Array<{
        id: number;
        number: number;
        content_hash: string;
        created_at: Date;
        source: string;
      }> = await db.query(
        `SELECT id, number, content_hash, created_at, source FROM document_versions
          WHERE document_id = $1 ORDER BY number`,
        [d],
      );
      return rows.map((r) =>
        JSON.stringify({
          versionId: r.id,
          number: r.number,
          content_hash: r.content_hash,
          created_at: r.created_at.toISOString(),
          source: r.source,
        }),
      );
    };
    const agrees = async (step: string): Promise<void> => {
      const want = await expected();
      const read = await get(`/documents/${d}`);
      const page = await get(`/documents/${d}/versions`);
      const one = await get(`/documents/${d}/versions/${first}`);
      withMessage(`${step}: ${read.text} ${page.text}`, () => {
        expect(read.status).toBe(200);
        expect(page.status).toBe(200);
        expect((read.body.versions as unknown[]).map((e) => JSON.stringify(e))).toEqual(want);
        expect((page.body.data as unknown[]).map((e) => JSON.stringify(e))).toEqual(want);
        // the single version's own read (which has no `source`) agrees with its entry
        const entry = JSON.parse(want[0]!) as Record<string, unknown>;
        for (const k of ['versionId', 'number', 'content_hash', 'created_at']) {
          expect(one.body[k]).toEqual(entry[k]);
        }
      });
    };
    await agrees('created');
    // microseconds are cut to milliseconds as the driver's Date cuts them
    await db.query(
      `UPDATE document_versions SET created_at = '2026-01-02 03:04:05.678901+00',
              source = 'external_revision' WHERE id = $1`,
      [first],
    );
    await agrees('created_at and source changed by SQL');
    expect((await get(`/documents/${d}`)).body.versions[0]).toEqual({
      versionId: first,
      number: 1,
      content_hash: expect.any(String),
      created_at: '2026-01-02T03:04:05.678Z',
      source: 'external_revision',
    });
  });

  it('a page of any size holds the rows in order whichever of its parts they fall in (128 items to a part)', async () => {
    const p = await createProject(t.app, a.tenantId);
    // 1,030 documents: a default page fills all 8 parts; titles of every width JSON escapes
    await db.query(
      `INSERT INTO documents (tenant_id, project_id, title)
       SELECT $1, $2, 'doc ' || g || (ARRAY['', ' é', ' 中😀', ' "q" \\ ', $3])[g % 5 + 1]
         FROM generate_series(1, 1030) g`,
      [a.tenantId, p, ' \u2028 \u0001'],
    );
    const stored: Array<{ summary_json: string }> = await db.query(
      `SELECT summary_json FROM documents WHERE project_id = $1 ORDER BY id`,
      [p],
    );
    const expected = stored.map((r) => JSON.parse(r.summary_json) as unknown);
    expect(expected).toHaveLength(1030);
    const documents = cases.find((x) => x.name === 'GET /projects/{projectId}/documents')!;
    const walkAll = async (limit: number): Promise<void> => {
      const items: unknown[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, string | number> = { limit };
        if (cursor) query['cursor'] = cursor;
        const res = await get(withQuery(`/projects/${p}/documents`, query));
        withMessage(`limit ${limit}: ${res.text.slice(0, 300)}`, () => {
          expect(res.status).toBe(200);
          expect(res.text).toBe(JSON.stringify(res.body));
          expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
        });
        items.push(...(res.body.data as unknown[]));
        cursor = res.body.next_cursor as string | null;
      } while (cursor !== null);
      withMessage(`limit ${limit}`, () => expect(items).toEqual(expected));
    };
    expect(documents.maxLimit).toBe(1000);
    for (const limit of [1000, 127, 128, 129, 256, 257, 1030 - 1000]) await walkAll(limit);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 60, max: 1000 }), walkAll), { numRuns: 6 });
  });

  it("lets go of a page's texts once the page is sent, big (gated) or small, and of a document's", async () => {
    const p = await createProject(t.app, a.tenantId);
    await db.query(
      `INSERT INTO documents (tenant_id, project_id, title)
       SELECT $1, $2, 'held ' || g FROM generate_series(1, 300) g`,
      [a.tenantId, p],
    );
    // what the platform released, each page's body after writing it: the calls' `this`
    const spy = jest.spyOn(JsonText.prototype, 'release');
    try {
      for (const limit of [1000, 150, 20]) {
        spy.mockClear();
        const res = await get(`/projects/${p}/documents?limit=${limit}`);
        const released = spy.mock.contexts as JsonText[];
        withMessage(`limit ${limit}`, () => {
          expect(res.status).toBe(200);
          expect(res.body.data).toHaveLength(Math.min(limit, 300));
          expect(released).toHaveLength(1);
          // the page's own texts are gone from the body; only what wraps them stays
          expect(() => released[0]!.text).toThrow(/released/);
        });
      }
      // the document read holds its text the same way (its index is up to 1,000 entries)
      const { documentId } = await createDocument(t.app, a.tenantId, p);
      spy.mockClear();
      const read = await get(`/documents/${documentId}`);
      expect(read.status).toBe(200);
      expect(read.text).toBe(JSON.stringify(read.body));
      const sent = spy.mock.contexts as JsonText[];
      expect(sent).toHaveLength(1);
      expect(() => sent[0]!.text).toThrow(/released/);
    } finally {
      spy.mockRestore();
    }
  });

  it('jsonObjectText writes in PostgreSQL what JSON.stringify writes in Node, for any value', async () => {
    const sql = `SELECT ${jsonObjectText({
      id: jsonValue.integer('$1::bigint'),
      text: jsonValue.text('$2::text'),
      at: jsonValue.timestamp('$3::timestamptz'),
      list: jsonValue.text('$4::text[]'),
      none: jsonValue.integer('NULL::int'),
    })} AS j`;
    // PostgreSQL text holds any Unicode scalar value but NUL
    const text = fc.string({ unit: 'binary', maxLength: 40 }).map((x) => x.replace(/\0/g, ''));
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.maxSafeNat()),
        fc.option(text),
        fc.option(
          fc.date({
            min: new Date('1970-01-01'),
            max: new Date('9999-12-31'),
            noInvalidDate: true,
          }),
        ),
        fc.option(fc.array(text, { maxLength: 3 })),
        async (id, str, at, list) => {
          const [row]: Array<{ j: string }> = await db.query(sql, [
            id === null ? null : String(id),
            str,
            at?.toISOString() ?? null,
            list,
          ]);
          expect(row!.j).toBe(
            JSON.stringify({ id, text: str, at: at?.toISOString() ?? null, list, none: null }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers an unknown parent like before: 400 project_not_found, 404 not_found', async () => {
    const missing = 2_000_000_000;
    for (const path of [`/projects/${missing}/documents`, `/projects/${missing}/files`]) {
      const res = await get(path);
      expect({ status: res.status, code: res.body.code }).toEqual({
        status: 400,
        code: 'project_not_found',
      });
    }
    for (const path of [
      `/documents/${missing}/versions`,
      `/documents/${missing}/external-revisions`,
    ]) {
      const res = await get(path);
      expect({ status: res.status, code: res.body.code }).toEqual({
        status: 404,
        code: 'not_found',
      });
    }
    // an empty list of an existing parent is 200 with an empty page
    const empty = await createProject(t.app, a.tenantId);
    const res = await get(`/projects/${empty}/files`);
    expect(res.body).toEqual({ data: [], next_cursor: null });
  });
});
