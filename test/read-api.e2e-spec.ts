import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { contentHash } from '../src/modules/documents/content-hash.js';
import { TenancyService } from '../src/modules/tenancy/tenancy.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call, type ApiResponse } from './support/http.js';
import {
  addProjectFile,
  createDocument,
  createProject,
  type TestDocument,
} from './support/read-factories.js';

const STORAGE = 's3://very-secret-bucket/tenant-a/audit-2026.pdf';

function withoutRequestId(res: ApiResponse): unknown {
  const body = { ...(res.body as Record<string, unknown>) };
  delete body.request_id;
  return { status: res.status, body };
}

describe('read API', () => {
  let t: TestApp;
  let a: TestCaller;
  let b: TestCaller;
  let projectA: number;
  let projectB: number;
  let docA: TestDocument;
  let docB: TestDocument;
  let fileA: number;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createCaller(t.app, { plan: 'starter' });
    b = await createCaller(t.app, { plan: 'starter' });
    projectA = await createProject(t.app, a.tenantId, { name: 'ISO 27001', description: 'cert' });
    projectB = await createProject(t.app, b.tenantId);
    docA = await createDocument(t.app, a.tenantId, projectA, {
      title: 'Access policy',
      contents: [{ v: 1 }, { v: 2 }, { v: 3, nested: { z: 1, a: [1, 2] } }],
    });
    docB = await createDocument(t.app, b.tenantId, projectB, { contents: [{ secret: 'b' }] });
    fileA = await addProjectFile(t.app, a.tenantId, projectA, {
      name: 'audit.pdf',
      size_bytes: 5_000_000_000,
      sha256: 'a'.repeat(64),
      storage_location: STORAGE,
    });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('GET /projects', () => {
    let caller: TestCaller;
    let ids: number[];
    beforeAll(async () => {
      caller = await createCaller(t.app);
      ids = [];
      for (let i = 0; i < 5; i++) ids.push(await createProject(t.app, caller.tenantId));
    });

    it('lists the tenant projects by id with the page envelope and defaults', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth });
      expect(res.status).toBe(200);
      expect(res.body.page).toEqual({ limit: 50, offset: 0, total: 5, next_cursor: null });
      expect(res.body.data.map((p: { projectId: number }) => p.projectId)).toEqual(ids);
      expect(Object.keys(res.body.data[0]).sort()).toEqual(
        ['created_at', 'description', 'name', 'projectId', 'status', 'updated_at'].sort(),
      );
    });

    it('pages with limit 1 and offset, and accepts limit 100', async () => {
      const one = await call(t.baseUrl, 'GET', '/projects?limit=1&offset=2', {
        auth: caller.auth,
      });
      expect(one.status).toBe(200);
      // a cursor to the page after this one (docs/integrators/paging.md; tested in lists.e2e-spec.ts)
      expect(one.body.page).toEqual({
        limit: 1,
        offset: 2,
        total: 5,
        next_cursor: expect.any(String),
      });
      expect(one.body.data.map((p: { projectId: number }) => p.projectId)).toEqual([ids[2]]);
      const hundred = await call(t.baseUrl, 'GET', '/projects?limit=100', { auth: caller.auth });
      expect(hundred.status).toBe(200);
      expect(hundred.body.page).toEqual({ limit: 100, offset: 0, total: 5, next_cursor: null });
      expect(hundred.body.data).toHaveLength(5);
    });

    it('an offset beyond the total gives empty data with the total', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects?offset=10', { auth: caller.auth });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [],
        page: { limit: 50, offset: 10, total: 5, next_cursor: null },
      });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
    ])('refuses %s with 400 validation_failed', async (query, field) => {
      const res = await call(t.baseUrl, 'GET', `/projects?${query}`, { auth: caller.auth });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('refuses unknown query parameters', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects?page=2', { auth: caller.auth });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('shows only the caller tenant projects', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects', { auth: b.auth });
      expect(res.body.data.map((p: { projectId: number }) => p.projectId)).toEqual([projectB]);
      expect(res.body.page.total).toBe(1);
    });
  });

  describe('projects, documents and files', () => {
    it('GET /projects/{projectId} returns the project', async () => {
      const res = await call(t.baseUrl, 'GET', `/projects/${projectA}`, { auth: a.auth });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        projectId: projectA,
        name: 'ISO 27001',
        description: 'cert',
        status: 'active',
      });
      expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('GET /projects/{projectId}/documents lists the documents', async () => {
      const res = await call(t.baseUrl, 'GET', `/projects/${projectA}/documents`, {
        auth: a.auth,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({
          documentId: docA.documentId,
          projectId: projectA,
          title: 'Access policy',
          status: 'active',
          current_version_id: docA.versionIds[2],
        }),
      ]);
    });

    it('GET /projects/{projectId}/files lists metadata without the storage location', async () => {
      const res = await call(t.baseUrl, 'GET', `/projects/${projectA}/files`, { auth: a.auth });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(Object.keys(res.body.data[0]).sort()).toEqual(
        ['created_at', 'fileId', 'media_type', 'name', 'sha256', 'size_bytes', 'updated_at'].sort(),
      );
      expect(res.body.data[0]).toMatchObject({
        fileId: fileA,
        name: 'audit.pdf',
        media_type: 'application/pdf',
        size_bytes: 5_000_000_000,
        sha256: 'a'.repeat(64),
      });
      expect(res.text).not.toContain('very-secret-bucket');
      expect(res.text).not.toContain('storage');
    });

    it('GET /documents/{documentId} gives the version index in ascending number', async () => {
      const res = await call(t.baseUrl, 'GET', `/documents/${docA.documentId}`, { auth: a.auth });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        documentId: docA.documentId,
        projectId: projectA,
        title: 'Access policy',
        current_version_id: docA.versionIds[2],
      });
      expect(res.body.versions).toEqual(
        docA.versionIds.map((versionId, i) => ({
          versionId,
          number: i + 1,
          content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          created_at: expect.any(String),
          source: 'platform',
        })),
      );
      expect(res.body.versions[0].content_hash).toBe(contentHash({ v: 1 }));
    });

    it('GET /documents/{documentId}/versions/{versionId} returns content with ETag', async () => {
      const res = await call(
        t.baseUrl,
        'GET',
        `/documents/${docA.documentId}/versions/${docA.versionIds[2]}`,
        { auth: a.auth },
      );
      expect(res.status).toBe(200);
      const content = { v: 3, nested: { z: 1, a: [1, 2] } };
      expect(res.body).toEqual({
        versionId: docA.versionIds[2],
        documentId: docA.documentId,
        number: 3,
        content,
        content_hash: contentHash(content),
        created_at: expect.any(String),
      });
      expect(res.headers.get('etag')).toBe(`"${res.body.content_hash}"`);
    });
  });

  describe('content hash and conditional requests', () => {
    let doc: TestDocument;
    let hash: string;
    const path = (): string => `/documents/${doc.documentId}/versions/${doc.versionIds[0]}`;

    beforeAll(async () => {
      const p = await createProject(t.app, a.tenantId);
      doc = await createDocument(t.app, a.tenantId, p, {
        contents: [
          { title: 'T', body: { sections: [1, 2], owner: 'x' }, n: 1.5 },
          { n: 1.5, body: { owner: 'x', sections: [1, 2] }, title: 'T' },
        ],
      });
      const res = await call(t.baseUrl, 'GET', path(), { auth: a.auth });
      hash = res.body.content_hash as string;
    });

    it('the same content with reordered keys hashes equal', async () => {
      const doc1 = await call(t.baseUrl, 'GET', `/documents/${doc.documentId}`, { auth: a.auth });
      const [v1, v2] = doc1.body.versions as Array<{ content_hash: string }>;
      expect(v1!.content_hash).toBe(v2!.content_hash);
      expect(v1!.content_hash).toBe(
        contentHash({ n: 1.5, title: 'T', body: { owner: 'x', sections: [1, 2] } }),
      );
    });

    it.each([
      ['the quoted hash', (h: string) => `"${h}"`],
      ['a weak tag', (h: string) => `W/"${h}"`],
      ['a list', (h: string) => `"nope", "${h}"`],
      ['*', () => '*'],
    ])('answers 304 with no body to If-None-Match %s', async (_, header) => {
      const res = await call(t.baseUrl, 'GET', path(), {
        auth: a.auth,
        headers: { 'if-none-match': header(hash) },
      });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(`"${hash}"`);
    });

    it('answers 200 to an If-None-Match that does not match', async () => {
      for (const header of [`"${'0'.repeat(64)}"`, hash]) {
        const res = await call(t.baseUrl, 'GET', path(), {
          auth: a.auth,
          headers: { 'if-none-match': header },
        });
        expect(res.status).toBe(200);
        expect(res.body.content_hash).toBe(hash);
      }
    });

    it('a 304 still needs authorisation and an existing version', async () => {
      const anon = await call(t.baseUrl, 'GET', path(), { headers: { 'if-none-match': '*' } });
      expect(anon.status).toBe(401);
      const foreign = await call(t.baseUrl, 'GET', path(), {
        auth: b.auth,
        headers: { 'if-none-match': '*' },
      });
      expect(foreign.status).toBe(404);
    });
  });

  describe('400 vs 404 rules', () => {
    const missing = 2_000_000_000;

    it.each(['', '/documents', '/files'])(
      'an unknown project on /projects/{id}%s is 400 project_not_found',
      async (suffix) => {
        const res = await call(t.baseUrl, 'GET', `/projects/${missing}${suffix}`, {
          auth: a.auth,
        });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('project_not_found');
        expect(res.body.errors).toBeUndefined();
      },
    );

    it('an unknown document or version is 404 not_found', async () => {
      const paths = [
        `/documents/${missing}`,
        `/documents/${missing}/versions/${docA.versionIds[0]}`,
        `/documents/${docA.documentId}/versions/${missing}`,
        // a real version of another document of the same tenant
        `/documents/${docA.documentId}/versions/${docB.versionIds[0]}`,
      ];
      for (const path of paths) {
        const res = await call(t.baseUrl, 'GET', path, { auth: a.auth });
        withMessage(path, () => expect(res.status).toBe(404));
        withMessage(path, () => expect(res.body.code).toBe('not_found'));
      }
    });

    it('a version of another document of the same tenant is 404', async () => {
      const other = await createDocument(t.app, a.tenantId, projectA);
      const res = await call(
        t.baseUrl,
        'GET',
        `/documents/${docA.documentId}/versions/${other.versionIds[0]}`,
        { auth: a.auth },
      );
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    });

    it.each([
      '/projects/abc',
      '/projects/0',
      '/projects/-1',
      '/projects/1.5',
      '/projects/99999999999',
      '/projects/abc/documents',
      '/projects/abc/files',
      '/documents/abc',
      '/documents/1e3',
      '/documents/0x10',
      '/projects/%201',
      '/projects/1%20',
      '/documents/abc/versions/1',
      '/documents/1/versions/abc',
    ])('a non-integer id in %s is 400 validation_failed', async (path) => {
      const res = await call(t.baseUrl, 'GET', path, { auth: a.auth });
      withMessage(res.text, () => expect(res.status).toBe(400));
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.length).toBeGreaterThan(0);
    });
  });

  describe('cross-tenant probes answer exactly as for a missing id', () => {
    const missing = 2_000_000_001;
    const probes = (): Array<[string, string]> => [
      [`/projects/${projectB}`, `/projects/${missing}`],
      [`/projects/${projectB}/documents`, `/projects/${missing}/documents`],
      [`/projects/${projectB}/files`, `/projects/${missing}/files`],
      [`/documents/${docB.documentId}`, `/documents/${missing}`],
      [
        `/documents/${docB.documentId}/versions/${docB.versionIds[0]}`,
        `/documents/${missing}/versions/${missing}`,
      ],
    ];

    it('every read endpoint', async () => {
      const hashB = contentHash({ secret: 'b' });
      for (const [foreign, absent] of probes()) {
        const f = await call(t.baseUrl, 'GET', foreign, { auth: a.auth });
        const m = await call(t.baseUrl, 'GET', absent, { auth: a.auth });
        withMessage(foreign, () => expect([400, 404]).toContain(f.status));
        withMessage(foreign, () => expect(withoutRequestId(f)).toEqual(withoutRequestId(m)));
        withMessage(foreign, () => expect(f.headers.get('etag') ?? '').not.toContain(hashB));
      }
    });

    it('a foreign version under an own document is answered as a missing version', async () => {
      const f = await call(
        t.baseUrl,
        'GET',
        `/documents/${docA.documentId}/versions/${docB.versionIds[0]}`,
        { auth: a.auth },
      );
      const m = await call(t.baseUrl, 'GET', `/documents/${docA.documentId}/versions/${missing}`, {
        auth: a.auth,
      });
      expect(f.status).toBe(404);
      expect(withoutRequestId(f)).toEqual(withoutRequestId(m));
    });
  });

  describe('scopes and entitlements', () => {
    it('refuses the project routes without projects:read', async () => {
      const caller = await createCaller(t.app, {
        tenantId: a.tenantId,
        scopes: ['documents:read'],
      });
      for (const path of ['/projects', `/projects/${projectA}/files`]) {
        const res = await call(t.baseUrl, 'GET', path, { auth: caller.auth });
        withMessage(path, () => expect(res.status).toBe(403));
        withMessage(path, () => expect(res.body.code).toBe('insufficient_scope'));
      }
      const ok = await call(t.baseUrl, 'GET', `/documents/${docA.documentId}`, {
        auth: caller.auth,
      });
      expect(ok.status).toBe(200);
    });

    it('refuses the document routes without documents:read', async () => {
      const caller = await createCaller(t.app, {
        tenantId: a.tenantId,
        scopes: ['projects:read'],
      });
      const paths = [
        `/documents/${docA.documentId}`,
        `/documents/${docA.documentId}/versions/${docA.versionIds[0]}`,
      ];
      for (const path of paths) {
        const res = await call(t.baseUrl, 'GET', path, { auth: caller.auth });
        withMessage(path, () => expect(res.status).toBe(403));
        withMessage(path, () => expect(res.body.code).toBe('insufficient_scope'));
      }
      const ok = await call(t.baseUrl, 'GET', `/projects/${projectA}/documents`, {
        auth: caller.auth,
      });
      expect(ok.status).toBe(200);
    });

    it('refuses both kinds of route when the tenant loses api.read', async () => {
      const caller = await createCaller(t.app, { plan: 'enterprise' });
      const p = await createProject(t.app, caller.tenantId);
      const d = await createDocument(t.app, caller.tenantId, p);
      const paths = ['/projects', `/projects/${p}`, `/documents/${d.documentId}`];
      for (const path of paths) {
        const res = await call(t.baseUrl, 'GET', path, { auth: caller.auth });
        withMessage(path, () => expect(res.status).toBe(200));
      }
      await t.app
        .get(TenancyService)
        .changeEntitlements(caller.tenantId, [{ entitlement: 'api.read', granted: false }]);
      for (const path of paths) {
        const res = await call(t.baseUrl, 'GET', path, { auth: caller.auth });
        withMessage(path, () => expect(res.status).toBe(403));
        withMessage(path, () => expect(res.body.code).toBe('entitlement_required'));
      }
    });
  });

  it('the OpenAPI document describes every read endpoint with schemas and examples', async () => {
    const res = await call(t.baseUrl, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    const get = (path: string) => doc.paths[path]?.get;
    for (const path of [
      '/api/v1/projects',
      '/api/v1/projects/{projectId}',
      '/api/v1/projects/{projectId}/documents',
      '/api/v1/projects/{projectId}/files',
      '/api/v1/documents/{documentId}',
      '/api/v1/documents/{documentId}/versions/{versionId}',
    ]) {
      withMessage(path, () => expect(get(path)).toBeDefined());
      withMessage(path, () =>
        expect(get(path).responses['200'].content['application/json'].schema).toBeDefined(),
      );
      withMessage(path, () => expect(get(path).responses['400']).toBeDefined());
    }
    expect(
      get('/api/v1/documents/{documentId}/versions/{versionId}').responses['304'],
    ).toBeDefined();
    expect(get('/api/v1/documents/{documentId}').responses['404']).toBeDefined();
    const version = doc.components.schemas.VersionResponse;
    expect(version.properties.content_hash.example).toMatch(/^[0-9a-f]{64}$/);
    const file = doc.components.schemas.ProjectFileResponse;
    expect(Object.keys(file.properties).sort()).toEqual(
      ['created_at', 'fileId', 'media_type', 'name', 'sha256', 'size_bytes', 'updated_at'].sort(),
    );
  });

  it('no response or log line ever contains the storage location', async () => {
    const responses = await Promise.all(
      [
        '/projects',
        `/projects/${projectA}`,
        `/projects/${projectA}/files`,
        `/projects/${projectA}/documents`,
        `/documents/${docA.documentId}`,
      ].map((path) => call(t.baseUrl, 'GET', path, { auth: a.auth })),
    );
    for (const res of responses) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(STORAGE);
    }
    expect(t.logs.length).toBeGreaterThan(0);
    expect(t.logs.filter((line) => line.includes('very-secret-bucket'))).toEqual([]);
  });
});
