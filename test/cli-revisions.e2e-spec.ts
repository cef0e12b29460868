import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import {
  createRevisionFixture,
  eventsOf,
  revisionRows,
  stage,
} from './support/revision-factories.js';
import { type CliResult, runCli } from './support/cli.js';

// each command spawns the CLI (a node process, answered on the test app's admin socket)
jest.setTimeout(90_000);

describe('revision accept / reject (CLI)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const cli = (...args: string[]): Promise<CliResult> => runCli(t, ...args);

  async function staged(): Promise<{ revisionId: number; documentId: number; tenantId: number }> {
    const f = await createRevisionFixture(t.app);
    const res = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { via: 'cli' } });
    expect(res.status).toBe(201);
    return {
      revisionId: res.body.revisionId,
      documentId: f.documentId,
      tenantId: f.caller.tenantId,
    };
  }

  it('accepts a candidate: prints one JSON object and records who decided', async () => {
    const r = await staged();
    const res = await cli(
      'revision',
      'accept',
      '--revision',
      String(r.revisionId),
      '--by',
      'jane@acme',
      '--note',
      'approved in review',
    );
    expect(res.code).toBe(0);
    expect(res.out).toEqual({
      revisionId: r.revisionId,
      status: 'accepted',
      resulting_version_id: expect.any(Number),
    });
    const [row] = await revisionRows(t.app, r.documentId);
    expect(row).toMatchObject({
      status: 'accepted',
      decided_by: 'jane@acme',
      decision_note: 'approved in review',
      resulting_version_id: res.out.resulting_version_id,
    });
    const types = (await eventsOf(t.app, r.tenantId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['document.version_created', 'external_revision.accepted']);
  });

  it('rejects a candidate', async () => {
    const r = await staged();
    const res = await cli('revision', 'reject', '--revision', String(r.revisionId), '--by', 'joe');
    expect(res.code).toBe(0);
    expect(res.out).toEqual({
      revisionId: r.revisionId,
      status: 'rejected',
      resulting_version_id: null,
    });
    expect((await revisionRows(t.app, r.documentId))[0]).toMatchObject({
      status: 'rejected',
      decided_by: 'joe',
      decision_note: null,
    });
  });

  it('answers a decided or unknown revision with an error object and exit code 1', async () => {
    const r = await staged();
    expect(
      (await cli('revision', 'reject', '--revision', String(r.revisionId), '--by', 'a')).code,
    ).toBe(0);
    const again = await cli('revision', 'accept', '--revision', String(r.revisionId), '--by', 'a');
    expect(again.code).toBe(1);
    expect(again.out).toEqual({
      error: { code: 'revision_not_staged', message: expect.stringContaining('rejected') },
    });
    const unknown = await cli('revision', 'accept', '--revision', '2000000000', '--by', 'a');
    expect(unknown.code).toBe(1);
    expect(unknown.out.error.code).toBe('not_found');
  });

  it('answers missing or malformed options with a usage error and exit code 2', async () => {
    const r = await staged();
    const [noBy, badId, noSub] = await Promise.all([
      cli('revision', 'accept', '--revision', String(r.revisionId)),
      cli('revision', 'reject', '--revision', 'twelve', '--by', 'a'),
      cli('revision'),
    ]);
    expect(noBy.code).toBe(2);
    expect(noBy.out.error.code).toBe('usage');
    expect(badId.code).toBe(2);
    expect(badId.out.error.code).toBe('usage');
    expect(noSub.code).toBe(2);
    expect((await revisionRows(t.app, r.documentId))[0]!.status).toBe('staged');
  });
});
