import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { type CliResult, runCli } from './support/cli.js';
import { withMessage } from './support/expect-message.js';

// each call spawns the CLI (a node process, answered on the test app's admin socket)
jest.setTimeout(180_000);

const CLI = join(process.cwd(), 'dist/src/cli.js');

describe('CLI: list commands, and no database made in an arbitrary folder', () => {
  let t: TestApp;
  let dir: string;

  const cli = (...args: string[]): Promise<CliResult> => runCli(t, ...args);

  beforeAll(async () => {
    t = await startTestApp();
    dir = await mkdtemp(join(tmpdir(), 'cli-lists-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function ok(...args: string[]): Promise<any> {
    const res = await cli(...args);
    withMessage(`${args.join(' ')}\n${res.stdout}${res.stderr}`, () => expect(res.code).toBe(0));
    return res.out;
  }

  it('lists tenants, clients, PATs, projects and webhooks as one JSON object, never a secret', async () => {
    const file = join(dir, 'fixture.json');
    await writeFile(
      file,
      JSON.stringify({
        tenants: [
          {
            name: 'Listed',
            plan: 'enterprise',
            clients: [
              { name: 'erp', scopes: 'projects:read', allowed_ips: ['10.0.0.0/8'] },
              { name: 'ci', scopes: ['projects:read', 'documents:read'] },
            ],
            pats: [{ name: 'portal', scopes: 'projects:read', expires_in_days: 30 }],
            projects: [{ name: 'ISO 27001' }, { name: 'SOC 2' }],
            webhooks: [{ name: 'erp', endpoint_url: 'https://erp.example.com/h', events: ['*'] }],
          },
        ],
      }),
    );
    const [made] = (await ok('fixture', 'apply', '--file', file)).tenants;
    const tenant = String(made.tenant_id);
    const secrets = [
      ...made.clients.map((c: { client_secret: string }) => c.client_secret),
      made.pats[0].token,
      made.webhooks[0].secret,
    ] as string[];
    const revoked = await ok('pat', 'revoke', '--pat', String(made.pats[0].pat_id));

    const tenants = await ok('tenant', 'list');
    expect(tenants.data).toContainEqual({
      tenant_id: made.tenant_id,
      name: 'Listed',
      plan: 'enterprise',
    });
    const ids = tenants.data.map((x: { tenant_id: number }) => x.tenant_id);
    expect([...ids].sort((a: number, b: number) => a - b)).toEqual(ids);

    const clients = await cli('client', 'list', '--tenant', tenant);
    expect(clients.code).toBe(0);
    expect(clients.out).toEqual({
      data: [
        {
          client_id: made.clients[0].client_id,
          name: 'erp',
          scopes: ['projects:read'],
          allowed_ips: ['10.0.0.0/8'],
          enabled: true,
          created_at: expect.any(String),
        },
        {
          client_id: made.clients[1].client_id,
          name: 'ci',
          scopes: ['projects:read', 'documents:read'],
          allowed_ips: [],
          enabled: true,
          created_at: expect.any(String),
        },
      ],
    });

    const pats = await cli('pat', 'list', '--tenant', tenant);
    expect(pats.code).toBe(0);
    expect(pats.out).toEqual({
      data: [
        {
          pat_id: made.pats[0].pat_id,
          name: 'portal',
          scopes: ['projects:read'],
          allowed_ips: [],
          expires_at: made.pats[0].expires_at,
          revoked_at: revoked.revoked_at,
          created_at: expect.any(String),
        },
      ],
    });

    const projects = await cli('project', 'list', '--tenant', tenant);
    expect(projects.code).toBe(0);
    expect(projects.out.data.map((p: { name: string }) => p.name)).toEqual(['ISO 27001', 'SOC 2']);
    expect(Object.keys(projects.out)).toEqual(['data']);

    const webhooks = await cli('webhook', 'list', '--tenant', tenant);
    expect(webhooks.code).toBe(0);
    expect(webhooks.out.data).toEqual([
      expect.objectContaining({
        webhookId: made.webhooks[0].webhookId,
        endpoint_url: 'https://erp.example.com/h',
      }),
    ]);

    for (const res of [clients, pats, projects, webhooks]) {
      // exactly one JSON object, without a secret or a digest of one
      expect(res.stdout.trim().split('\n')).toHaveLength(1);
      for (const s of secrets) expect(res.stdout).not.toContain(s);
      expect(res.stdout).not.toMatch(/digest|secret"|token"|gcs_|gpat_|whsec_/);
    }
  });

  it('answers an unknown tenant with not_found (exit 1) and a missing --tenant with usage (exit 2)', async () => {
    for (const group of ['client', 'pat', 'project', 'webhook']) {
      const unknown = await cli(group, 'list', '--tenant', '999999');
      withMessage(group, () =>
        expect([unknown.code, unknown.out?.error?.code]).toEqual([1, 'not_found']),
      );
      const missing = await cli(group, 'list');
      withMessage(group, () =>
        expect([missing.code, missing.out?.error?.code]).toEqual([2, 'usage']),
      );
    }
  });

  it('refuses to make a database where none was asked for, and says where it would have', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'cli-nowhere-'));
    try {
      const res = await new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [CLI, 'tenant', 'list', '--json'],
          { cwd, env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 },
          (err, stdout) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout }),
        );
      });
      expect(res.code).toBe(1);
      const lines = res.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const out = JSON.parse(lines[0]!) as { error: { code: string; message: string } };
      expect(out.error.code).toBe('invalid_configuration');
      expect(out.error.message).toContain(join(cwd, '.data'));
      expect(out.error.message).toMatch(/DATA_DIR/);
      expect(existsSync(join(cwd, '.data'))).toBe(false);
      expect(await readdir(cwd)).toEqual([]);

      // help needs no database: it still lists the commands
      const help = await new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [CLI, 'tenant', '--help'],
          { cwd, env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 },
          (err, stdout) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout }),
        );
      });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/Usage: grc-integration-api tenant/);
      expect(help.stdout).toMatch(/list\s.*every tenant/);
      expect(await readdir(cwd)).toEqual([]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
