import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../src/common/http/app-error.js';
import { ContentService, IMPORT_ERRORS_KEPT } from '../src/modules/content/content.service.js';
import { PreconditionFailedError } from '../src/modules/documents/documents.errors.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTenant } from './support/factories.js';
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
