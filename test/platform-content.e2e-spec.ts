import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../src/common/http/app-error.js';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { ContentService, IMPORT_ERRORS_KEPT } from '../src/modules/content/content.service.js';
import { PreconditionFailedError } from '../src/modules/documents/documents.errors.js';
import { startTestApp, type TestApp } from './support/app.js';
import { exchange } from './support/raw-exchange.js';
import { createCaller, createTenant } from './support/factories.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';
import {
  createRevisionFixture,
  currentHash,
  eventsOf,
  revisionRows,
  stage,
} from './support/revision-factories.js';

const lines = (...objects: unknown[]): string =>
  objects.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n') + '\n';

/** A body as the route hands it over: a stream of chunks, here cut at arbitrary byte offsets. */
function streamOf(text: string, chunkBytes = 7): Readable {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.subarray(i, i + chunkBytes));
  return Readable.from(chunks);
}

describe('platform content (services)', () => {
  let t: TestApp;
  let content: ContentService;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    content = t.app.get(ContentService);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('projects by the platform id', () => {
    it('creates, then updates the same row; absent fields keep what is stored', async () => {
      const tenantId = await createTenant(t.app);
      const first = await content.putProject(tenantId, 'prj:1', {
        name: 'ISO',
        description: 'd1',
        status: 'archived',
      });
      expect(first.created).toBe(true);
      expect(first.view).toMatchObject({
        external_id: 'prj:1',
        name: 'ISO',
        description: 'd1',
        status: 'archived',
      });
      const second = await content.putProject(tenantId, 'prj:1', { name: 'ISO 27001' });
      expect(second.created).toBe(false);
      expect(second.view).toMatchObject({
        projectId: first.view.projectId,
        name: 'ISO 27001',
        description: 'd1',
        status: 'archived',
      });
      // the same id in another tenant is another project
      const other = await createTenant(t.app);
      const theirs = await content.putProject(other, 'prj:1', { name: 'theirs' });
      expect(theirs.created).toBe(true);
      expect(theirs.view.projectId).not.toBe(first.view.projectId);
    });

    it('refuses an unknown tenant with 404', async () => {
      await expect(content.putProject(999_999, 'p', { name: 'x' })).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('takes exactly the ids of 1 to 200 characters of A-Z a-z 0-9 . _ : -', async () => {
      const tenantId = await createTenant(t.app);
      const allowed = fc.stringMatching(/^[A-Za-z0-9._:-]{1,200}$/);
      await fc.assert(
        fc.asyncProperty(allowed, async (id) => {
          const r = await content.putProject(tenantId, id, { name: 'n' });
          expect(r.view.external_id).toBe(id);
        }),
        { numRuns: 40 },
      );
      const refused = fc.oneof(
        fc.constant(''),
        fc.stringMatching(/^[A-Za-z0-9._:-]{201,260}$/),
        fc
          .tuple(fc.string(), fc.constantFrom(' ', '/', '%', 'é', '\u0000', '#', '?'), fc.string())
          .map(([a, bad, b]) => `${a}${bad}${b}`.slice(0, 200)),
      );
      await fc.assert(
        fc.asyncProperty(refused, async (id) => {
          if (/^[A-Za-z0-9._:-]{1,200}$/.test(id)) return;
          await expect(content.putProject(tenantId, id, { name: 'n' })).rejects.toBeInstanceOf(
            ValidationFailedError,
          );
        }),
        { numRuns: 60 },
      );
    });
  });

  describe('documents by the platform id', () => {
    it('creates with the first version (source platform, event), then updates the title only', async () => {
      const tenantId = await createTenant(t.app);
      const { view: project } = await content.putProject(tenantId, 'p', { name: 'P' });
      await expect(
        content.putDocument(project.projectId, 'd', { title: 'no content' }),
      ).rejects.toBeInstanceOf(ValidationFailedError);
      const made = await content.putDocument(project.projectId, 'd', {
        title: 'Policy',
        content: { a: 1 },
      });
      expect(made.created).toBe(true);
      expect(made.view).toMatchObject({ external_id: 'd', title: 'Policy', status: 'active' });
      const again = await content.putDocument(project.projectId, 'd', {
        title: 'Policy v2',
        content: { ignored: true },
      });
      expect(again.created).toBe(false);
      expect(again.view).toMatchObject({
        documentId: made.view.documentId,
        title: 'Policy v2',
        current_version_id: made.view.current_version_id,
        content_hash: made.view.content_hash,
      });
      const versions: Array<{ number: number; source: string }> = await db.query(
        'SELECT number, source FROM document_versions WHERE document_id = $1',
        [made.view.documentId],
      );
      expect(versions).toEqual([{ number: 1, source: 'platform' }]);
      const events = await eventsOf(t.app, tenantId, 'document.version_created');
      expect(events.map((e) => e.data)).toEqual([
        expect.objectContaining({
          documentId: made.view.documentId,
          versionId: made.view.current_version_id,
          number: 1,
        }),
      ]);
    });

    it('answers 404 for an unknown project', async () => {
      await expect(
        content.putDocument(999_999, 'd', { title: 'x', content: {} }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('versions from the platform', () => {
    it('refuses a stale If-Match with 412 and writes nothing', async () => {
      const f = await createRevisionFixture(t.app);
      const stale = 'a'.repeat(64);
      await expect(
        content.createVersion(f.documentId, { x: 1 }, `"${stale}"`),
      ).rejects.toBeInstanceOf(PreconditionFailedError);
      const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
      const made = await content.createVersion(f.documentId, { x: 1 }, `"${hash}"`);
      expect(made).toMatchObject({ documentId: f.documentId, number: 2, source: 'platform' });
      expect(await currentHash(t.app, f.caller.tenantId, f.documentId)).toBe(made.content_hash);
    });

    it('supersedes the candidates staged on the older base, as an accept does', async () => {
      const f = await createRevisionFixture(t.app);
      const staged = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { c: 1 } });
      expect(staged.status).toBe(201);
      const made = await content.createVersion(f.documentId, { edited: true }, undefined);
      const rows = await revisionRows(t.app, f.documentId);
      expect(rows.map((r) => r.status)).toEqual(['superseded']);
      const superseded = await eventsOf(t.app, f.caller.tenantId, 'external_revision.superseded');
      expect(superseded.map((e) => e.data['revisionId'])).toEqual([staged.body.revisionId]);
      const created = await eventsOf(t.app, f.caller.tenantId, 'document.version_created');
      expect(created.at(-1)?.data).toMatchObject({ versionId: made.versionId, number: 2 });
    });
  });

  describe('file metadata by the platform id', () => {
    it('creates, replaces, never answers the storage path, deletes', async () => {
      const tenantId = await createTenant(t.app);
      const { view: project } = await content.putProject(tenantId, 'p', { name: 'P' });
      const file = {
        name: 'a.pdf',
        media_type: 'application/pdf',
        size_bytes: 10,
        sha256: 'AB'.repeat(32),
        storage_path: 's3://secret-bucket/key',
      };
      const made = await content.putFile(project.projectId, 'f1', file);
      expect(made.created).toBe(true);
      expect(made.view).toMatchObject({ external_id: 'f1', sha256: 'ab'.repeat(32) });
      expect(JSON.stringify(made)).not.toContain('secret-bucket');
      const replaced = await content.putFile(project.projectId, 'f1', {
        ...file,
        sha256: undefined,
        size_bytes: 11,
      });
      expect(replaced).toMatchObject({
        created: false,
        view: { fileId: made.view.fileId, size_bytes: 11, sha256: null },
      });
      await content.deleteFile(project.projectId, 'f1');
      await expect(content.deleteFile(project.projectId, 'f1')).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });
  });

  describe('NDJSON import', () => {
    const project = { kind: 'project', external_id: 'p1', name: 'P1' };
    const doc = (i: number) => ({
      kind: 'document',
      project_external_id: 'p1',
      external_id: `d${i}`,
      title: `Doc ${i}`,
      content: { i, text: 'é'.repeat(50) },
    });
    const file = {
      kind: 'file',
      project_external_id: 'p1',
      external_id: 'f1',
      name: 'a.pdf',
      media_type: 'application/pdf',
      size_bytes: 1,
      storage_path: 's3://b/k',
    };

    it('upserts line by line, keeps good lines beside bad ones, and a re-run creates nothing', async () => {
      const tenantId = await createTenant(t.app);
      const body = lines(
        project,
        doc(1),
        'not json',
        { kind: 'folder', external_id: 'x' },
        { ...doc(2), external_id: 'bad id' },
        { ...doc(3), project_external_id: 'nope' },
        { ...doc(4), extra: 1 },
        '',
        doc(5),
        file,
      );
      const report = await content.importNdjson(tenantId, streamOf(body));
      expect(report.created).toEqual({ projects: 1, documents: 2, files: 1 });
      expect(report.updated).toEqual({ projects: 0, documents: 0, files: 0 });
      expect(report.errors.map((e) => [e.line, e.code])).toEqual([
        [3, 'validation_failed'],
        [4, 'validation_failed'],
        [5, 'validation_failed'],
        [6, 'not_found'],
        [7, 'validation_failed'],
      ]);
      const rerun = await content.importNdjson(tenantId, streamOf(body, 1000));
      expect(rerun.created).toEqual({ projects: 0, documents: 0, files: 0 });
      expect(rerun.updated).toEqual({ projects: 1, documents: 2, files: 1 });
      const versions: Array<{ n: string }> = await db.query(
        `SELECT count(*) AS n FROM document_versions WHERE tenant_id = $1`,
        [tenantId],
      );
      expect(Number(versions[0]!.n)).toBe(2);
    });

    it('finds a project only from an earlier line, whatever the batch boundaries', async () => {
      // the document names its project a line before the project's own line: refused, in one
      // batch as across batches, as if the lines were written one by one
      const tenantId = await createTenant(t.app);
      const report = await content.importNdjson(tenantId, streamOf(lines(doc(1), project, doc(2))));
      expect(report.errors.map((e) => [e.line, e.code])).toEqual([[1, 'not_found']]);
      expect(report.created).toEqual({ projects: 1, documents: 1, files: 0 });
    });

    it('refuses content over the content limits as a line error', async () => {
      const tenantId = await createTenant(t.app);
      let deep: unknown = 1;
      for (let i = 0; i < t.config.CONTENT_MAX_DEPTH + 1; i++) deep = [deep];
      const report = await content.importNdjson(
        tenantId,
        streamOf(lines(project, { ...doc(1), content: { deep } }, doc(2))),
      );
      expect(report.created.documents).toBe(1);
      expect(report.errors).toEqual([
        expect.objectContaining({ line: 2, code: 'validation_failed' }),
      ]);
      expect(report.errors[0]!.message).toContain('CONTENT_MAX_DEPTH');
    });

    it('keeps the first 100 errors only', async () => {
      const tenantId = await createTenant(t.app);
      const body = 'x\n'.repeat(IMPORT_ERRORS_KEPT + 20);
      const report = await content.importNdjson(tenantId, streamOf(body, 64));
      expect(report.errors).toHaveLength(IMPORT_ERRORS_KEPT);
      expect(report.errors.at(-1)?.line).toBe(IMPORT_ERRORS_KEPT);
    });

    it('writes across batches, a later batch naming a project of an earlier one', async () => {
      const tenantId = await createTenant(t.app);
      const many = Array.from({ length: 1200 }, (_, i) => doc(i));
      const report = await content.importNdjson(tenantId, streamOf(lines(project, ...many), 4096));
      expect(report.errors).toEqual([]);
      expect(report.created).toEqual({ projects: 1, documents: 1200, files: 0 });
    });
  });
});

/** POST /tenants/{tenantId}/import with a raw NDJSON body. */
function importCall(
  t: TestApp,
  tenantId: number,
  body: string,
  options: {
    auth?: string;
    actor?: string | null;
    type?: string;
    headers?: Record<string, string>;
  } = {},
) {
  return platformCall(t, 'POST', `/tenants/${tenantId}/import`, {
    auth: options.auth,
    actor: options.actor === null ? undefined : (options.actor ?? 'alice@platform'),
    rawBody: body,
    headers: { 'content-type': options.type ?? 'application/x-ndjson', ...options.headers },
  });
}

describe('platform content (HTTP)', () => {
  let t: TestApp;
  let key: TestPlatformKey;
  let db: DataSource;
  const actor = 'alice@platform';

  beforeAll(async () => {
    t = await startTestApp();
    key = await createPlatformKey(t.app, ['platform:content'], 'content-test');
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (path: string, body: unknown, headers?: Record<string, string>) =>
    platformCall(t, 'PUT', path, { auth: key.auth, actor, body, headers });

  describe('refusals', () => {
    it('without a key 401, with another scope 403, with an integration credential 401', async () => {
      const tenantId = await createTenant(t.app);
      const path = `/tenants/${tenantId}/projects/p`;
      const none = await platformCall(t, 'PUT', path, { actor, body: { name: 'x' } });
      expect(none.status).toBe(401);
      const other = await createPlatformKey(t.app, ['platform:tenants'], 'other');
      const wrong = await platformCall(t, 'PUT', path, {
        auth: other.auth,
        actor,
        body: { name: 'x' },
      });
      expect(wrong.status).toBe(403);
      expect(wrong.body.code).toBe('insufficient_scope');
      const caller = await createCaller(t.app);
      const integration = await platformCall(t, 'PUT', path, {
        auth: caller.auth,
        actor,
        body: { name: 'x' },
      });
      expect(integration.status).toBe(401);
      const imported = await importCall(t, tenantId, lines({ kind: 'project' }), {
        auth: caller.auth,
      });
      expect(imported.status).toBe(401);
      // and the platform's routes are not on the integration port
      const there = await platformCall(t, 'PUT', `${t.baseUrl}/platform/v1${path}`, {
        auth: key.auth,
        actor,
        body: { name: 'x' },
      });
      expect(there.status).toBe(401);
    });

    it('refuses a write without X-Acting-User', async () => {
      const tenantId = await createTenant(t.app);
      const res = await platformCall(t, 'PUT', `/tenants/${tenantId}/projects/p`, {
        auth: key.auth,
        body: { name: 'x' },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      const imported = await importCall(t, tenantId, lines({ kind: 'project' }), {
        auth: key.auth,
        actor: null,
      });
      expect(imported.status).toBe(400);
      const blank = await importCall(t, tenantId, lines({ kind: 'project' }), {
        auth: key.auth,
        actor: ' ',
      });
      expect(blank.status).toBe(400);
    });

    it('answers 404 for an unknown tenant, project or document', async () => {
      expect((await put('/tenants/999999/projects/p', { name: 'x' })).status).toBe(404);
      expect((await put('/projects/999999/documents/d', { title: 'x', content: {} })).status).toBe(
        404,
      );
      expect(
        (
          await put('/projects/999999/files/f', {
            name: 'a',
            media_type: 'a/b',
            size_bytes: 1,
            storage_path: 'x',
          })
        ).status,
      ).toBe(404);
      const version = await platformCall(t, 'POST', '/documents/999999/versions', {
        auth: key.auth,
        actor,
        body: { content: {} },
      });
      expect(version.status).toBe(404);
      expect(version.body.code).toBe('not_found');
      const imported = await importCall(t, 999_999, lines({ kind: 'project' }), {
        auth: key.auth,
      });
      expect(imported.status).toBe(404);
    });

    it('refuses a bad externalId with 400 validation_failed', async () => {
      const tenantId = await createTenant(t.app);
      for (const bad of ['a%20b', 'x'.repeat(201), '%C3%A9', 'a%2Fb']) {
        const res = await put(`/tenants/${tenantId}/projects/${bad}`, { name: 'x' });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
      expect(
        (await put(`/tenants/${tenantId}/projects/${'x'.repeat(200)}`, { name: 'x' })).status,
      ).toBe(201);
    });

    it('refuses unknown fields (closed bodies)', async () => {
      const tenantId = await createTenant(t.app);
      const res = await put(`/tenants/${tenantId}/projects/p`, { name: 'x', colour: 'red' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });
  });

  describe('upserts', () => {
    it('PUT project: 201 created, 200 updated, audited with the actor and the tenant', async () => {
      const tenantId = await createTenant(t.app);
      const made = await put(`/tenants/${tenantId}/projects/prj:1`, { name: 'ISO' });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        tenant_id: tenantId,
        external_id: 'prj:1',
        name: 'ISO',
        description: '',
        status: 'active',
      });
      const updated = await put(`/tenants/${tenantId}/projects/prj:1`, {
        name: 'ISO 27001',
        status: 'archived',
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ projectId: made.body.projectId, status: 'archived' });
      await t.app.get(AuditService).drain();
      const audit: Array<Record<string, unknown>> = await db.query(
        `SELECT tenant_id, credential_ref, actor, outcome FROM audit_log
          WHERE action = 'platform.project.upsert' AND tenant_id = $1 ORDER BY id`,
        [tenantId],
      );
      expect(audit).toEqual([
        {
          tenant_id: tenantId,
          credential_ref: 'platform:content-test',
          actor,
          outcome: 'success',
        },
        {
          tenant_id: tenantId,
          credential_ref: 'platform:content-test',
          actor,
          outcome: 'success',
        },
      ]);
    });

    it('PUT document: 201 with its first version, 200 without a new one; ETag is the hash', async () => {
      const tenantId = await createTenant(t.app);
      const project = await put(`/tenants/${tenantId}/projects/p`, { name: 'P' });
      const path = `/projects/${project.body.projectId}/documents/doc.1`;
      const missing = await put(path, { title: 'No content' });
      expect(missing.status).toBe(400);
      const made = await put(path, { title: 'Policy', content: { a: 1 } });
      expect(made.status).toBe(201);
      expect(made.headers.get('etag')).toBe(`"${made.body.content_hash}"`);
      const updated = await put(path, { title: 'Policy 2', content: { b: 2 } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        documentId: made.body.documentId,
        title: 'Policy 2',
        current_version_id: made.body.current_version_id,
        content_hash: made.body.content_hash,
      });
      // the integration API sees the document
      const caller = await createCaller(t.app, { tenantId });
      const read = await platformCall(
        t,
        'GET',
        `${t.baseUrl}/api/v1/documents/${made.body.documentId}`,
        { auth: caller.auth },
      );
      expect(read.status).toBe(200);
      expect(read.body.versions).toHaveLength(1);
      expect(read.body.versions[0].source).toBe('platform');
    });

    it('PUT and DELETE file metadata; the storage path is never answered nor logged', async () => {
      const tenantId = await createTenant(t.app);
      const project = await put(`/tenants/${tenantId}/projects/p`, { name: 'P' });
      const path = `/projects/${project.body.projectId}/files/f-1`;
      const storage = `s3://very-private-bucket/${Date.now()}/a.pdf`;
      const file = {
        name: 'a.pdf',
        media_type: 'application/pdf',
        size_bytes: 3,
        storage_path: storage,
      };
      const made = await put(path, file);
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ external_id: 'f-1', size_bytes: 3, sha256: null });
      expect(JSON.stringify(made.body)).not.toContain('very-private-bucket');
      const replaced = await put(path, { ...file, size_bytes: 4 });
      expect(replaced.status).toBe(200);
      const caller = await createCaller(t.app, { tenantId });
      const listed = await platformCall(
        t,
        'GET',
        `${t.baseUrl}/api/v1/projects/${project.body.projectId}/files`,
        { auth: caller.auth },
      );
      expect(listed.body.data).toEqual([expect.objectContaining({ fileId: made.body.fileId })]);
      expect(JSON.stringify(listed.body)).not.toContain('very-private-bucket');
      const deleted = await platformCall(t, 'DELETE', path, { auth: key.auth, actor });
      expect(deleted.status).toBe(204);
      const again = await platformCall(t, 'DELETE', path, { auth: key.auth, actor });
      expect(again.status).toBe(404);
      await t.app.get(AuditService).drain();
      const audit: Array<{ tenant_id: number; outcome: string }> = await db.query(
        `SELECT tenant_id, outcome FROM audit_log WHERE action = 'platform.file.delete'
          AND target = $1 ORDER BY id`,
        [`project:${project.body.projectId}:file:external:f-1`],
      );
      expect(audit).toEqual([
        { tenant_id: tenantId, outcome: 'success' },
        // a refusal on a known project is the project's tenant's too
        { tenant_id: tenantId, outcome: 'failure' },
      ]);
      expect(t.logs.join('\n')).not.toContain('very-private-bucket');
    });
  });

  describe('versions', () => {
    it('412 precondition_failed for a stale If-Match; 201 with the current one', async () => {
      const f = await createRevisionFixture(t.app);
      const path = `/documents/${f.documentId}/versions`;
      const stale = await platformCall(t, 'POST', path, {
        auth: key.auth,
        actor,
        body: { content: { v: 2 } },
        headers: { 'if-match': `"${'0'.repeat(64)}"` },
      });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({
        code: 'precondition_failed',
        current_version_id: f.versionIds.at(-1),
      });
      await t.app.get(AuditService).drain();
      const refused: Array<{ tenant_id: number; detail: string }> = await db.query(
        `SELECT tenant_id, detail FROM audit_log WHERE action = 'platform.document.version'
          AND target = $1`,
        [`document:${f.documentId}`],
      );
      expect(refused).toEqual([{ tenant_id: f.caller.tenantId, detail: 'precondition_failed' }]);
      const weak = await platformCall(t, 'POST', path, {
        auth: key.auth,
        actor,
        body: { content: { v: 2 } },
        headers: { 'if-match': `W/"${'0'.repeat(64)}"` },
      });
      expect(weak.status).toBe(400);
      const hash = await currentHash(t.app, f.caller.tenantId, f.documentId);
      const made = await platformCall(t, 'POST', path, {
        auth: key.auth,
        actor,
        body: { content: { v: 2 } },
        headers: { 'if-match': `"${hash}"` },
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        documentId: f.documentId,
        tenant_id: f.caller.tenantId,
        number: 2,
        source: 'platform',
      });
      expect(made.headers.get('etag')).toBe(`"${made.body.content_hash}"`);
    });

    it('stores big contents (prepared off the event loop) exactly, as versions and first versions', async () => {
      // over 256 KiB: decoded, canonicalised and hashed in the JSON worker, sent as binary jsonb
      const big = {
        text: 'é'.repeat(150_000),
        items: Array.from({ length: 2_000 }, (_, i) => ({ i, z: `v${i}` })),
      };
      const f = await createRevisionFixture(t.app);
      const made = await platformCall(t, 'POST', `/documents/${f.documentId}/versions`, {
        auth: key.auth,
        actor,
        body: { content: big },
      });
      expect(made.status).toBe(201);
      const [stored]: Array<{ content: unknown; content_hash: string }> = await db.query(
        'SELECT content, content_hash FROM document_versions WHERE id = $1',
        [made.body.versionId],
      );
      expect(stored!.content).toEqual(big);
      expect(stored!.content_hash).toBe(made.body.content_hash);
      const tenantId = f.caller.tenantId;
      const project = await put(`/tenants/${tenantId}/projects/big-p`, { name: 'Big' });
      const doc = await put(`/projects/${project.body.projectId}/documents/big-d`, {
        title: 'Big',
        content: big,
      });
      expect(doc.status).toBe(201);
      const [first]: Array<{ content: unknown; content_hash: string }> = await db.query(
        'SELECT content, content_hash FROM document_versions WHERE id = $1',
        [doc.body.current_version_id],
      );
      expect(first!.content).toEqual(big);
      expect(first!.content_hash).toBe(made.body.content_hash);
    });

    it('supersedes the staged candidates on the older base: no accept can overwrite it', async () => {
      const f = await createRevisionFixture(t.app);
      const staged = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { c: 1 } });
      expect(staged.status).toBe(201);
      const made = await platformCall(t, 'POST', `/documents/${f.documentId}/versions`, {
        auth: key.auth,
        actor,
        body: { content: { edited: true } },
      });
      expect(made.status).toBe(201);
      expect((await revisionRows(t.app, f.documentId)).map((r) => r.status)).toEqual([
        'superseded',
      ]);
      const events = await eventsOf(t.app, f.caller.tenantId, 'external_revision.superseded');
      expect(events.map((e) => e.data['revisionId'])).toEqual([staged.body.revisionId]);
    });
  });

  describe('NDJSON import', () => {
    const body = lines(
      { kind: 'project', external_id: 'p1', name: 'P1' },
      {
        kind: 'document',
        project_external_id: 'p1',
        external_id: 'd1',
        title: 'D1',
        content: { a: 1 },
      },
      '{"kind": "document", "project_external_id": "p1"',
      {
        kind: 'file',
        project_external_id: 'p1',
        external_id: 'f1',
        name: 'a.pdf',
        media_type: 'application/pdf',
        size_bytes: 1,
        storage_path: 's3://import-secret/a.pdf',
      },
    );

    it('answers the counts and the bad lines; a re-run creates nothing', async () => {
      const tenantId = await createTenant(t.app);
      const first = await importCall(t, tenantId, body, { auth: key.auth });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        created: { projects: 1, documents: 1, files: 1 },
        updated: { projects: 0, documents: 0, files: 0 },
        errors: [{ line: 3, code: 'validation_failed', message: expect.any(String) }],
      });
      const rerun = await importCall(t, tenantId, body, { auth: key.auth });
      expect(rerun.body).toMatchObject({
        created: { projects: 0, documents: 0, files: 0 },
        updated: { projects: 1, documents: 1, files: 1 },
      });
      await t.app.get(AuditService).drain();
      const audit: Array<{ actor: string; outcome: string }> = await db.query(
        `SELECT actor, outcome FROM audit_log WHERE action = 'platform.import' AND tenant_id = $1`,
        [tenantId],
      );
      expect(audit).toEqual([
        { actor, outcome: 'success' },
        { actor, outcome: 'success' },
      ]);
      expect(t.logs.join('\n')).not.toContain('import-secret');
    });

    it('reads no byte of the body before the key and its scope are known good', async () => {
      const tenantId = await createTenant(t.app);
      const other = await createPlatformKey(t.app, ['platform:tenants'], 'no-content');
      const head = (auth: string) =>
        [
          `POST /platform/v1/tenants/${tenantId}/import HTTP/1.1`,
          `Host: 127.0.0.1`,
          `Content-Type: application/x-ndjson`,
          // announced, never sent: an answer can only come from a server that did not wait for it
          `Content-Length: 50000000`,
          `X-Acting-User: alice`,
          ...(auth ? [`Authorization: ${auth}`] : []),
          '',
          '{"kind":"project"',
        ].join('\r\n');
      const none = await exchange(t.platformUrl, head(''));
      expect(none.status).toBe(401);
      expect(none.closed).toBe(true);
      // the guard has met the route once (the key holding its scope), so the admission knows it
      await importCall(t, tenantId, '', { auth: key.auth });
      const wrong = await exchange(t.platformUrl, head(other.auth));
      expect(wrong.status).toBe(403);
      expect(wrong.closed).toBe(true);
    });

    it('refuses another media type or a compressed body with 415', async () => {
      const tenantId = await createTenant(t.app);
      const json = await importCall(t, tenantId, body, {
        auth: key.auth,
        type: 'application/json',
      });
      expect(json.status).toBe(415);
      const gz = await importCall(t, tenantId, body, {
        auth: key.auth,
        headers: { 'content-encoding': 'gzip' },
      });
      expect(gz.status).toBe(415);
      const latin = await importCall(t, tenantId, body, {
        auth: key.auth,
        type: 'application/x-ndjson; charset=iso-8859-1',
      });
      expect(latin.status).toBe(415);
    });
  });
});

describe('platform content import (a body larger than BODY_LIMIT)', () => {
  let t: TestApp;
  let key: TestPlatformKey;

  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT: '16kb' });
    key = await createPlatformKey(t.app, ['platform:content']);
  });
  afterAll(async () => {
    await t.close();
  });

  it('streams the body line by line; only a line over the limit is refused', async () => {
    const tenantId = await createTenant(t.app);
    const docs = Array.from({ length: 40 }, (_, i) => ({
      kind: 'document',
      project_external_id: 'p',
      external_id: `d${i}`,
      title: `D${i}`,
      content: { text: 'x'.repeat(2048) },
    }));
    const huge = { ...docs[0]!, external_id: 'huge', content: { text: 'y'.repeat(20_000) } };
    const body = lines({ kind: 'project', external_id: 'p', name: 'P' }, ...docs, huge);
    expect(Buffer.byteLength(body)).toBeGreaterThan(4 * 16 * 1024);
    const res = await importCall(t, tenantId, body, { auth: key.auth });
    expect(res.status).toBe(200);
    expect(res.body.created).toEqual({ projects: 1, documents: 40, files: 0 });
    expect(res.body.errors).toEqual([
      { line: 42, code: 'payload_too_large', message: expect.stringContaining('16384') },
    ]);
    // the JSON routes keep their limit
    const big = await platformCall(t, 'PUT', `/tenants/${tenantId}/projects/x`, {
      auth: key.auth,
      actor: 'a',
      body: { name: 'x', description: 'z'.repeat(20_000) },
    });
    expect(big.status).toBe(413);
  });
});
