import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { type CliResult, runCli } from './support/cli.js';
import { withMessage } from './support/expect-message.js';

// each call spawns the CLI (a node process, answered on the test app's admin socket)
jest.setTimeout(180_000);

/** `fixture apply` is all or nothing: a failing entry leaves nothing, and says which it was. */
describe('CLI: fixture apply', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    dir = await mkdtemp(join(tmpdir(), 'cli-fixture-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function apply(fixture: object): Promise<CliResult> {
    const file = join(dir, `${randomBytes(4).toString('hex')}.json`);
    await writeFile(file, JSON.stringify(fixture));
    return runCli(t, 'fixture', 'apply', '--file', file);
  }

  /** What exists of the tenants named `names`: tenants, clients, PATs, projects, webhooks. */
  async function made(names: string[]): Promise<Record<string, number>> {
    const [row] = await t.app.get(DataSource).query<Array<Record<string, number>>>(
      `WITH t AS (SELECT id FROM tenants WHERE name = ANY($1))
       SELECT (SELECT count(*)::int FROM t) AS tenants,
              (SELECT count(*)::int FROM api_clients WHERE tenant_id IN (SELECT id FROM t)) AS clients,
              (SELECT count(*)::int FROM personal_access_tokens WHERE tenant_id IN (SELECT id FROM t)) AS pats,
              (SELECT count(*)::int FROM projects WHERE tenant_id IN (SELECT id FROM t)) AS projects,
              (SELECT count(*)::int FROM documents WHERE tenant_id IN (SELECT id FROM t)) AS documents,
              (SELECT count(*)::int FROM webhooks WHERE tenant_id IN (SELECT id FROM t)) AS webhooks`,
      [names],
    );
    return row!;
  }

  const name = (what: string): string => `${what} ${randomBytes(4).toString('hex')}`;

  function fixture(a: string, b: string, second: { client: object; pat: object }): object {
    return {
      tenants: [
        {
          name: a,
          plan: 'enterprise',
          clients: [{ name: 'ci', scopes: 'projects:read' }],
          pats: [{ name: 'portal', scopes: ['projects:read'] }],
          projects: [{ name: 'ISO 27001', documents: [{ title: 'Policy', content: { v: 1 } }] }],
          webhooks: [{ name: 'erp', endpoint_url: 'https://erp.example.com/hooks', events: ['*'] }],
        },
        {
          name: b,
          plan: 'starter',
          clients: [{ name: 'ok', scopes: 'projects:read' }, second.client],
          pats: [second.pat],
        },
      ],
    };
  }

  it('leaves nothing when an entry fails, names that entry, and a corrected re-run makes each thing once', async () => {
    const a = name('Atomic A');
    const b = name('Atomic B');

    // the second tenant's second client asks for a scope that does not exist
    const badScope = await apply(
      fixture(a, b, {
        client: { name: 'erp', scopes: 'projects:write' },
        pat: { name: 'p', scopes: 'projects:read' },
      }),
    );
    withMessage(badScope.stdout + badScope.stderr, () => expect(badScope.code).toBe(1));
    expect(badScope.out.error.code).toBe('validation_failed');
    expect(badScope.out.error.message).toMatch(/^tenants\[1\]\.clients\[1\]: .*projects:write/);
    expect(await made([a, b])).toEqual({
      tenants: 0,
      clients: 0,
      pats: 0,
      projects: 0,
      documents: 0,
      webhooks: 0,
    });

    // the clients are right now; a PAT on the starter plan is refused by the service
    const noPat = await apply(
      fixture(a, b, {
        client: { name: 'erp', scopes: 'projects:read' },
        pat: { name: 'p', scopes: 'projects:read' },
      }),
    );
    withMessage(noPat.stdout + noPat.stderr, () => expect(noPat.code).toBe(1));
    expect(noPat.out.error.code).toBe('entitlement_required');
    expect(noPat.out.error.message).toMatch(/^tenants\[1\]\.pats\[0\]: .*auth\.pat/);
    expect(noPat.stdout).not.toMatch(/gcs_|gpat_|whsec_/);
    expect(await made([a, b])).toEqual({
      tenants: 0,
      clients: 0,
      pats: 0,
      projects: 0,
      documents: 0,
      webhooks: 0,
    });

    // corrected: the second tenant has no PAT
    const corrected = fixture(a, b, {
      client: { name: 'erp', scopes: 'projects:read' },
      pat: { name: 'p', scopes: 'projects:read' },
    }) as { tenants: Array<{ pats?: object[] }> };
    corrected.tenants[1]!.pats = [];
    const ok = await apply(corrected);
    withMessage(ok.stdout + ok.stderr, () => expect(ok.code).toBe(0));
    expect(ok.out.tenants).toHaveLength(2);
    expect(await made([a])).toEqual({
      tenants: 1,
      clients: 1,
      pats: 1,
      projects: 1,
      documents: 1,
      webhooks: 1,
    });
    expect(await made([b])).toEqual({
      tenants: 1,
      clients: 2,
      pats: 0,
      projects: 0,
      documents: 0,
      webhooks: 0,
    });
  });

  it('names a malformed entry and leaves nothing of the entries before it', async () => {
    const a = name('Malformed');
    const res = await apply({
      tenants: [
        {
          name: a,
          clients: [{ name: 'ci', scopes: 'projects:read' }],
          projects: [{ name: 'P', documents: [{ title: 'T', content: [1, 2] }] }],
        },
      ],
    });
    withMessage(res.stdout + res.stderr, () => expect(res.code).toBe(2));
    expect(res.out.error.message).toMatch(/^tenants\[0\]\.projects\[0\]\.documents\[0\]/);
    expect((await made([a])).tenants).toBe(0);
  });
});
