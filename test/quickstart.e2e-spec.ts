import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import { quickstart, QuickstartError } from '../examples/quickstart.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createClient, createTenant, type TestClient } from './support/factories.js';
import { call } from './support/http.js';
import { createDocument, createProject, type TestDocument } from './support/read-factories.js';
import { tampered } from './support/secrets.js';

const run = promisify(execFile);
const hashOf = (content: unknown): string =>
  createHash('sha256')
    .update(canonicalize(content) ?? '')
    .digest('hex');

/** The typed quickstart (examples/quickstart.ts) against the real service, step by step. */
describe('examples/quickstart.ts', () => {
  let t: TestApp;
  let client: TestClient;
  let projectId: number;
  let doc: TestDocument;
  const content = { title: 'Access policy', sections: [{ heading: 'Scope', body: 'All staff.' }] };

  beforeAll(async () => {
    t = await startTestApp();
    const tenantId = await createTenant(t.app, 'enterprise');
    client = await createClient(t.app, tenantId);
    projectId = await createProject(t.app, tenantId, { name: 'ISO 27001' });
    doc = await createDocument(t.app, tenantId, projectId, {
      title: 'Access policy',
      contents: [{ title: 'Access policy', sections: [] }, content],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs token → projects → document → checkout → stage with If-Match → checkin', async () => {
    const lines: string[] = [];
    const result = await quickstart({
      baseUrl: t.baseUrl,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      documentId: doc.documentId,
      log: (line) => lines.push(line),
    });
    const currentVersionId = doc.versionIds[1];

    expect(result.token.token_type).toBe('Bearer');
    expect(result.token.access_token).toMatch(/^gat_/);
    expect(result.projects.page.total).toBe(1);
    expect(result.projects.data.map((p) => p.projectId)).toEqual([projectId]);
    expect(result.document.documentId).toBe(doc.documentId);
    expect(result.document.current_version_id).toBe(currentVersionId);
    expect(result.document.versions.map((v) => v.versionId)).toEqual(doc.versionIds);
    expect(result.version.content).toEqual(content);
    expect(result.version.content_hash).toBe(hashOf(content));
    expect(result.etag).toBe(`"${hashOf(content)}"`);
    expect(result.checkout.lock_token).toMatch(/^glk_/);
    expect(Date.parse(result.checkout.expires_at)).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect(result.staged).toMatchObject({
      documentId: doc.documentId,
      base_version_id: currentVersionId,
      status: 'staged',
      source_reference: 'quickstart',
      content_hash: hashOf({ ...content, reviewed_by_integration: true }),
    });
    expect(result.location).toBe(
      `/api/v1/documents/${doc.documentId}/external-revisions/${result.staged.revisionId}`,
    );
    expect(result.checkin.documentId).toBe(doc.documentId);
    expect(lines).toHaveLength(6);

    // the service agrees: the candidate is staged, the document unchanged and unlocked
    const auth = `Bearer ${result.token.access_token}`;
    const revisions = await call(
      t.baseUrl,
      'GET',
      `/documents/${doc.documentId}/external-revisions`,
      {
        auth,
      },
    );
    expect(revisions.body.data.map((r: { revisionId: number }) => r.revisionId)).toEqual([
      result.staged.revisionId,
    ]);
    const document = await call(t.baseUrl, 'GET', `/documents/${doc.documentId}`, { auth });
    expect(document.body.current_version_id).toBe(currentVersionId);
    const again = await call(t.baseUrl, 'POST', `/documents/${doc.documentId}/checkout`, { auth });
    expect(again.status).toBe(201);
    await call(t.baseUrl, 'POST', `/documents/${doc.documentId}/checkin`, {
      auth,
      body: { lock_token: again.body.lock_token },
    });
  });

  it('stops at the failing step with the error body of the API', async () => {
    const badSecret = quickstart({
      baseUrl: t.baseUrl,
      clientId: client.clientId,
      clientSecret: tampered(client.clientSecret),
      documentId: doc.documentId,
    });
    await expect(badSecret).rejects.toMatchObject({
      step: 'token',
      status: 401,
      body: { error: 'invalid_client' },
    });

    const unknownDocument = quickstart({
      baseUrl: t.baseUrl,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      documentId: 999_999,
    });
    await expect(unknownDocument).rejects.toBeInstanceOf(QuickstartError);
    await expect(unknownDocument).rejects.toMatchObject({
      step: 'read document',
      status: 404,
      body: { code: 'not_found', type: 'urn:problem:not_found' },
    });
  });

  it('runs as a program: exit 0 on success, non-zero on failure', async () => {
    await run('npx', ['tsc', '-p', 'examples/tsconfig.json'], { timeout: 120_000 });
    const env = {
      ...process.env,
      BASE_URL: t.baseUrl,
      CLIENT_ID: client.clientId,
      CLIENT_SECRET: client.clientSecret,
      DOCUMENT_ID: String(doc.documentId),
    };
    const ok = await run('node', ['dist/examples/quickstart.js'], { env, timeout: 30_000 });
    expect(ok.stdout).toMatch(/^token: Bearer, expires in 3600 s/);
    expect(ok.stdout).toMatch(/staged candidate revision \d+ \(staged\)/);
    expect(ok.stdout).toMatch(/checked in at /);

    const failed = run('node', ['dist/examples/quickstart.js'], {
      env: { ...env, DOCUMENT_ID: '999999' },
      timeout: 30_000,
    });
    await expect(failed).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/read document failed with HTTP 404/),
    });
  }, 150_000);
});
