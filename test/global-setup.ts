import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  embeddedDatabaseDir,
  runningPostmaster,
  startEmbeddedDatabase,
} from '../src/common/database/embedded-database.js';
import { runMigrations } from '../src/common/database/migrate.js';
import {
  PG_SERVER_URL_ENV,
  POOLER_MODE_ENV,
  POOLER_URL_ENV,
  TEMPLATE_DB_ENV,
} from './support/database.js';
import { startPgBouncer } from './support/pgbouncer.js';
import { adminQuery, withDatabase } from './support/pg-url.js';

/**
 * Stops the embedded PostgreSQL if this run dies without its teardown (a crash, SIGKILL, an
 * abort): a detached process that waits for the runner (argv[1]) or the postmaster (argv[2]) to
 * be gone, then stops the postmaster and removes its directory (argv[3]).
 */
const WATCHDOG = `
const [runner, postmaster] = process.argv.slice(1, 3).map(Number);
const dir = process.argv[3];
const fs = require('node:fs');
// a process that has exited but is not reaped yet (a zombie) still answers signal 0
const alive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true;
  }
};
const timer = setInterval(() => {
  if (alive(runner) && alive(postmaster)) return;
  clearInterval(timer);
  if (alive(postmaster)) process.kill(postmaster, 'SIGINT');
  let waited = 0;
  const done = setInterval(() => {
    if (alive(postmaster) && (waited += 100) < 30000) return;
    if (alive(postmaster)) process.kill(postmaster, 'SIGKILL');
    clearInterval(done);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 100);
}, 500);
`;

/**
 * Once per run: a real PostgreSQL (the embedded one unless DATABASE_URL is set), migrations into a
 * template database; every test file then clones its own database from the template. Sets the
 * environment variables test/support/database.ts reads and returns the teardown (drops the
 * template, stops the server).
 */
export async function startTestDatabase(): Promise<() => Promise<void>> {
  let serverUrl = process.env.DATABASE_URL;
  let stop = async (): Promise<void> => {};
  if (!serverUrl) {
    // under the system temp dir: the embedded server runs as the postgres user and must reach it
    const dir = await mkdtemp(join(tmpdir(), 'grc-test-pg-'));
    await chmod(dir, 0o755);
    const db = await startEmbeddedDatabase(dir, 0, pino({ level: 'warn' })).catch(async (err) => {
      const postmaster = runningPostmaster(embeddedDatabaseDir(dir));
      if (postmaster) process.kill(postmaster.pid, 'SIGINT');
      throw err;
    });
    const postmaster = runningPostmaster(embeddedDatabaseDir(dir));
    const watchdog = postmaster
      ? spawn(
          process.execPath,
          ['-e', WATCHDOG, String(process.pid), String(postmaster.pid), dir],
          {
            detached: true,
            stdio: 'ignore',
          },
        )
      : undefined;
    watchdog?.unref();
    serverUrl = db.adminUrl;
    stop = async () => {
      await db.stop();
      watchdog?.kill();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const url = serverUrl;
  const template = `grc_template_${process.pid}`;
  try {
    await adminQuery(url, `DROP DATABASE IF EXISTS ${template}`);
    await adminQuery(url, `CREATE DATABASE ${template}`);
    await runMigrations(withDatabase(url, template));
  } catch (err) {
    await adminQuery(url, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {});
    await stop();
    throw err;
  }
  process.env[PG_SERVER_URL_ENV] = url;
  process.env[TEMPLATE_DB_ENV] = template;

  const poolMode = process.env.TEST_PGBOUNCER;
  let pooler: Awaited<ReturnType<typeof startPgBouncer>> | undefined;
  if (poolMode) {
    if (poolMode !== 'transaction' && poolMode !== 'session') {
      throw new Error(`TEST_PGBOUNCER must be transaction or session, not ${poolMode}`);
    }
    // 5 server connections per test database, for a service pool of 20 (DATABASE_POOL_SIZE)
    pooler = await startPgBouncer({ serverUrl: url, mode: poolMode, poolSize: 5 }).catch(
      async (err: unknown) => {
        await adminQuery(url, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {});
        await stop();
        throw err;
      },
    );
    process.env[POOLER_URL_ENV] = pooler.url;
    process.env[POOLER_MODE_ENV] = poolMode;
  }

  return async () => {
    await pooler?.stop();
    await adminQuery(url, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {});
    await stop();
  };
}
