import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import {
  createRevisionFixture,
  eventsOf,
  revisionRows,
  stage,
} from './support/revision-factories.js';
import { rememberSecretsIn } from './support/secrets.js';

/** The built CLI (`npm run build` first; `npm test` does it in `pretest`). */
const CLI = 'dist/src/cli.js';

interface CliResult {
  code: number;
  json: any;
  stderr: string;
}

// each command boots Nest and connects to PostgreSQL: seconds on a loaded machine (each test and hook of this file)
jest.setTimeout(90_000);

describe('revision accept / reject (CLI)', () => {
  let t: TestApp;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  function cli(...args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args, '--json'],
        {
          env: {
            PATH: process.env.PATH,
            ...t.database.env,
            WEBHOOK_SECRET_KEY: t.config.WEBHOOK_SECRET_KEY,
            LOG_LEVEL: 'warn',
          },
          timeout: 30_000,
        },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
          let json: unknown = null;
          try {
            json = JSON.parse(stdout);
          } catch {
            json = stdout;
          }
          // secrets the CLI prints are remembered; its own log lines (stderr) must not carry any
          rememberSecretsIn(json);
          t.logs.push(stderr);
          resolve({ code, json, stderr });
        },
      );
    });
  }

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
    const out = await cli(
      'revision',
      'accept',
      '--revision',
      String(r.revisionId),
      '--by',
      'jane@acme',
      '--note',
      'approved in review',
    );
    expect(out.code).toBe(0);
    expect(out.json).toEqual({
      revisionId: r.revisionId,
      status: 'accepted',
      resulting_version_id: expect.any(Number),
    });
    const [row] = await revisionRows(t.app, r.documentId);
    expect(row).toMatchObject({
      status: 'accepted',
      decided_by: 'jane@acme',
      decision_note: 'approved in review',
      resulting_version_id: out.json.resulting_version_id,
    });
    const types = (await eventsOf(t.app, r.tenantId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['document.version_created', 'external_revision.accepted']);
  });

  it('rejects a candidate', async () => {
    const r = await staged();
    const out = await cli('revision', 'reject', '--revision', String(r.revisionId), '--by', 'joe');
    expect(out.code).toBe(0);
    expect(out.json).toEqual({
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
    expect(again.json).toEqual({
      error: { code: 'revision_not_staged', message: expect.stringContaining('rejected') },
    });
    const unknown = await cli('revision', 'accept', '--revision', '2000000000', '--by', 'a');
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe('not_found');
  });

  it('answers missing or malformed options with a usage error and exit code 2', async () => {
    const r = await staged();
    const [noBy, badId, noSub] = await Promise.all([
      cli('revision', 'accept', '--revision', String(r.revisionId)),
      cli('revision', 'reject', '--revision', 'twelve', '--by', 'a'),
      cli('revision'),
    ]);
    expect(noBy.code).toBe(2);
    expect(noBy.json.error.code).toBe('usage');
    expect(badId.code).toBe(2);
    expect(badId.json.error.code).toBe('usage');
    expect(noSub.code).toBe(2);
    expect((await revisionRows(t.app, r.documentId))[0]!.status).toBe('staged');
  });
});
