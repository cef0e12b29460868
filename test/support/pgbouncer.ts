import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './service-process.js';

/** Debian's `pgbouncer` package (`apt-get install pgbouncer`; .ci/run installs it). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `postgres://…@127.0.0.1:<port>/` : the pooler, with the server's user and password. */
  url: string;
  /** Runs a command of PgBouncer's admin console (`RECONNECT`, `SHOW POOLS`, …); its rows. */
  admin(command: string): Promise<Array<Record<string, unknown>>>;
  /** Everything PgBouncer logged so far. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** PostgreSQL itself: `postgres://user:password@host:port/…` (host may be a socket directory) */
  serverUrl: string;
  mode: 'session' | 'transaction';
  /** Server connections per database and user: kept well below the service's pool. */
  poolSize: number;
  /**
   * Databases declared by name; any other is an auto-database of the `*` entry. PgBouncer 1.18's
   * RECONNECT treats an auto-database's connect string as changed and refuses logins for
   * `server_login_retry` afterwards: a declared one is reconnected cleanly.
   */
  databases?: readonly string[];
}

/**
 * A real PgBouncer in front of `serverUrl`, for every database of that server (`* =`), with
 * stock settings that matter here: no `ignore_startup_parameters`, no `max_prepared_statements`
 * (1.18 has none), `trust` towards its clients. It refuses to run as root, so it runs as the
 * `postgres` system user (the one the embedded PostgreSQL runs as) when started by root.
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(`${PGBOUNCER} is missing: apt-get install -y pgbouncer`);
  }
  const server = new URL(options.serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  // the embedded server's host is its socket directory, percent-encoded in the URL
  const host = decodeURIComponent(server.hostname);
  const dir = await mkdtemp(join(tmpdir(), 'grc-pgbouncer-'));
  // PgBouncer (as the postgres user when started by root) writes its log and pid file here
  await chmod(dir, 0o777);
  const port = await freePort();
  const logFile = join(dir, 'pgbouncer.log');
  await writeFile(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`, { mode: 0o644 });
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      ...(options.databases ?? []).map(
        (name) => `${name} = host=${host} port=${server.port || 5432} dbname=${name}`,
      ),
      `* = host=${host} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      `pool_mode = ${options.mode}`,
      `default_pool_size = ${options.poolSize}`,
      'max_client_conn = 2000',
      `logfile = ${logFile}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      // a test database is dropped WITH (FORCE) while its pool may still be open
      'server_login_retry = 1',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(
    PGBOUNCER,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const url = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/`;
  const admin = async (command: string): Promise<Array<Record<string, unknown>>> => {
    const client = new pg.Client({ connectionString: `${url}pgbouncer` });
    await client.connect();
    try {
      // the admin console speaks the simple query protocol only
      const result = await client.query(command);
      return result.rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await admin('SHOW VERSION');
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) {
        const log = await readFile(logFile, 'utf8').catch(() => '');
        await rm(dir, { recursive: true, force: true });
        child.kill('SIGKILL');
        throw new Error(`PgBouncer did not start: ${String(err)}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    admin,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
