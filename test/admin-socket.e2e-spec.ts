import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import { until } from './support/until.js';

const CLI = join(process.cwd(), 'dist/src/cli.js');

interface Answer {
  code: number;
  out: any;
}

// each call spawns the CLI process (which hands the command line to the service)
jest.setTimeout(120_000);

/**
 * The CLI while the service runs: commands go to the service's admin socket and run there, one
 * after another, on command objects the service booted once. What one call was given must not
 * reach the next, and booting those commands must not change the service's own logging.
 */
describe('administration commands on the running service (admin socket)', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let dir: string;
  let socket: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'grc-admin-'));
    socket = join(dir, 'admin.sock');
    database = await createTestDatabase();
    service = await startService({
      ...database.env,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      ADMIN_SOCKET: socket,
      MAX_CONNECTIONS: '2',
      LOG_LEVEL: 'warn',
    });
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The CLI as an administrator runs it beside the service: no database settings, the socket. */
  function cli(...args: string[]): Promise<Answer> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args, '--json'],
        { env: { PATH: process.env.PATH ?? '', ADMIN_SOCKET: socket }, timeout: 60_000 },
        (err, stdout) => {
          let out: unknown = null;
          try {
            out = JSON.parse(stdout);
          } catch {
            // left null: the assertions show it
          }
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out });
        },
      );
    });
  }

  async function tenant(plan: string): Promise<number> {
    const created = await cli('tenant', 'create', '--name', `admin-${plan}`, '--plan', plan);
    expect(created.code).toBe(0);
    return created.out.tenant_id as number;
  }

  const entitlementsOf = async (id: number): Promise<string[]> => {
    const view = await cli('tenant', 'entitlements', '--tenant', String(id));
    expect(view.code).toBe(0);
    return view.out.entitlements as string[];
  };

  it("applies a call's --add/--remove to its own tenant only, never to a later call's", async () => {
    const a = await tenant('starter');
    const b = await tenant('starter');
    const starter = await entitlementsOf(b);
    expect(starter).toEqual(['api.read']);

    const added = await cli(
      'tenant',
      'entitlements',
      '--tenant',
      String(a),
      '--add',
      'api.webhooks',
    );
    expect(added.out.entitlements).toEqual(['api.read', 'api.webhooks']);
    // a plain view of another tenant changes nothing
    expect(await entitlementsOf(b)).toEqual(starter);
    const removed = await cli(
      'tenant',
      'entitlements',
      '--tenant',
      String(b),
      '--remove',
      'api.read',
    );
    expect(removed.out.entitlements).toEqual([]);
    expect(await entitlementsOf(a)).toEqual(['api.read', 'api.webhooks']);
  });

  it('forgets a refused value: the next call is not refused for it', async () => {
    const a = await tenant('starter');
    const typo = await cli('tenant', 'entitlements', '--tenant', String(a), '--add', 'api.webhook');
    expect(typo.code).toBe(2);
    expect(typo.out.error.code).toBe('usage');
    expect(await entitlementsOf(a)).toEqual(['api.read']);
  });

  it("gives a client only its own call's --allow-ip ranges", async () => {
    const c = await tenant('enterprise');
    const args = ['client', 'create', '--tenant', String(c), '--scopes', 'projects:read'];
    const first = await cli(...args, '--name', 'erp', '--allow-ip', '10.0.0.0/8');
    expect(first.code).toBe(0);
    expect(first.out.allowed_ips).toEqual(['10.0.0.0/8']);
    const second = await cli(...args, '--name', 'portal');
    expect(second.code).toBe(0);
    expect(second.out.allowed_ips).toEqual([]);
  });

  it("keeps the service's own log lines once the commands are booted", async () => {
    // the commands above ran on the service: its command modules are booted
    expect(
      (await cli('tenant', 'entitlements', '--tenant', String(await tenant('starter')))).code,
    ).toBe(0);
    const { port } = service;
    const sockets = await Promise.all(
      [0, 1, 2, 3].map(
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(port, '127.0.0.1', () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    try {
      // a warning of the HTTP platform (a Nest Logger): past MAX_CONNECTIONS, one is dropped
      await until('the connection-cap warning is in the service log', () =>
        service.output().includes('MAX_CONNECTIONS reached'),
      );
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});
