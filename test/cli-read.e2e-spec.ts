import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { contentHash } from '../src/modules/documents/content-hash.js';
import { startTestApp, type TestApp } from './support/app.js';
import { type CliResult, runCli } from './support/cli.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, createTenant, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createProject } from './support/read-factories.js';

describe('CLI: project create, document create, file add', () => {
  let t: TestApp;
  let caller: TestCaller;
  let dir: string;

  const cli = (...args: string[]): Promise<CliResult> => runCli(t, ...args);

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app, { plan: 'starter' });
    dir = await mkdtemp(join(tmpdir(), 'cli-read-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a project, a document and file metadata that the API then serves', async () => {
    const project = await cli(
      'project',
      'create',
      '--tenant',
      String(caller.tenantId),
      '--name',
      'ISO 27001',
      '--description',
      'certification',
    );
    withMessage(project.stdout + project.stderr, () => expect(project.code).toBe(0));
    expect(project.out).toEqual({ projectId: expect.any(Number) });
    const projectId = project.out.projectId as number;

    const content = { sections: [{ heading: 'Scope', body: 'all' }], owner: 'ciso' };
    const file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify(content));
    const doc = await cli(
      'document',
      'create',
      '--project',
      String(projectId),
      '--title',
      'Access policy',
      '--content-file',
      file,
    );
    withMessage(doc.stdout + doc.stderr, () => expect(doc.code).toBe(0));
    expect(doc.out).toEqual({ documentId: expect.any(Number), versionId: expect.any(Number) });

    const storage = 's3://cli-secret-bucket/k/audit.pdf';
    const added = await cli(
      'file',
      'add',
      '--project',
      String(projectId),
      '--name',
      'audit.pdf',
      '--media-type',
      'application/pdf',
      '--size',
      '1234',
      '--sha256',
      'AB'.repeat(32),
      '--storage-path',
      storage,
    );
    withMessage(added.stdout + added.stderr, () => expect(added.code).toBe(0));
    expect(added.out).toEqual({ fileId: expect.any(Number) });
    expect(added.stdout + added.stderr).not.toContain('cli-secret-bucket');

    const p = await call(t.baseUrl, 'GET', `/projects/${projectId}`, { auth: caller.auth });
    expect(p.body).toMatchObject({ name: 'ISO 27001', description: 'certification' });
    const v = await call(
      t.baseUrl,
      'GET',
      `/documents/${doc.out.documentId}/versions/${doc.out.versionId}`,
      { auth: caller.auth },
    );
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ number: 1, content, content_hash: contentHash(content) });
    const files = await call(t.baseUrl, 'GET', `/projects/${projectId}/files`, {
      auth: caller.auth,
    });
    expect(files.body.data).toEqual([
      expect.objectContaining({
        fileId: added.out.fileId,
        name: 'audit.pdf',
        size_bytes: 1234,
        sha256: 'ab'.repeat(32),
      }),
    ]);
    expect(files.text).not.toContain('cli-secret-bucket');
    const [row] = await t.app
      .get(DataSource)
      .query('SELECT storage_location FROM project_files WHERE id = $1', [added.out.fileId]);
    expect(row.storage_location).toBe(storage);

    // the document belongs to the project's tenant and the version event was written with it
    const events = await t.app
      .get(DataSource)
      .query(`SELECT tenant_id, type FROM events WHERE type = 'document.version_created'`);
    expect(events).toContainEqual({
      tenant_id: caller.tenantId,
      type: 'document.version_created',
    });
  }, 120_000);

  it('refuses a content file that is not a JSON object (exit 1)', async () => {
    const tenantId = await createTenant(t.app);
    const projectId = String(await createProject(t.app, tenantId));
    const cases = [
      ['array.json', '[1,2]', /must hold a JSON object/],
      ['null.json', 'null', /must hold a JSON object/],
      ['broken.json', '{"a":', /not valid JSON/],
      ['missing.json', undefined, /cannot read/],
      // what the API refuses in content (docs/operators/security.md), the CLI refuses too, naming the path
      ['proto.json', '{"a":{"__proto__":{}}}', /content\.a\.__proto__/],
      ['nul.json', '{"a":"x\\u0000"}', /content\.a/],
      // and its limits, counted before the file is parsed (CONTENT_MAX_DEPTH 64, _NODES 100,000)
      ['deep.json', `{"a":${'['.repeat(64)}${']'.repeat(64)}}`, /CONTENT_MAX_DEPTH/],
      ['wide.json', `{"a":[${Array(100_000).fill(0).join(',')}]}`, /CONTENT_MAX_NODES/],
    ] as const;
    const results = await Promise.all(
      cases.map(async ([name, text]) => {
        const path = join(dir, name);
        if (text !== undefined) await writeFile(path, text);
        return cli(
          'document',
          'create',
          '--project',
          projectId,
          '--title',
          'T',
          '--content-file',
          path,
        );
      }),
    );
    results.forEach((res, i) => {
      const [name, , message] = cases[i]!;
      withMessage(name, () => expect(res.code).toBe(1));
      withMessage(name, () => expect(res.out.error.code).toBe('validation_failed'));
      withMessage(name, () => expect(res.out.error.message).toMatch(message));
    });
    const [{ n }] = await t.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM documents WHERE project_id = $1', [Number(projectId)]);
    expect(n).toBe(0);
  }, 120_000);

  it('answers unknown projects with exit 1 and bad arguments with exit 2', async () => {
    const file = join(dir, 'ok.json');
    await writeFile(file, '{}');
    const fileAdd = (project: string, size: string, ...extra: string[]): string[] => [
      'file',
      'add',
      '--project',
      project,
      '--name',
      'a',
      '--media-type',
      'text/plain',
      '--size',
      size,
      '--storage-path',
      's3://b/k',
      ...extra,
    ];
    const [unknownDoc, unknownFile, badTenant, badSize, badHash] = await Promise.all([
      cli('document', 'create', '--project', '999999', '--title', 'T', '--content-file', file),
      cli(...fileAdd('999999', '1')),
      cli('project', 'create', '--tenant', 'abc', '--name', 'P'),
      cli(...fileAdd('1', '-1')),
      cli(...fileAdd('1', '1', '--sha256', 'xyz')),
    ]);
    expect(unknownDoc.code).toBe(1);
    expect(unknownDoc.out.error.code).toBe('not_found');
    expect(unknownFile.code).toBe(1);
    expect(unknownFile.out.error.code).toBe('not_found');
    expect(unknownFile.stdout).not.toContain('s3://b/k');
    expect(badTenant.code).toBe(2);
    expect(badTenant.out.error.code).toBe('usage');
    expect(badSize.code).toBe(2);
    expect(badSize.out.error.message).toMatch(/--size/);
    expect(badHash.code).toBe(2);
    expect(badHash.out.error.message).toMatch(/sha256/);
  }, 120_000);
});
