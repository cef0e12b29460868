import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runningEmbeddedUrls } from '../src/common/database/embedded-access.js';
import {
  embeddedDatabaseDir,
  runningPostmaster,
} from '../src/common/database/embedded-database.js';
import { adminQuery, ROOT } from './harness.js';

/** The database one of the standalone benches runs its service on. */
export interface BenchDatabase {
  /** What the service's environment needs to use it. */
  env: Record<string, string>;
  /** An owner's URL, known once the service has started (embedded: the service starts it). */
  url(): string;
  drop(): Promise<void>;
}

/**
 * DATABASE_URL unset: the service's embedded PostgreSQL in `work`/data (stopped by `drop` when
 * `stopEmbedded`, else left to the service). Set: a fresh migrated database `<prefix>_<hex>` on
 * that server, dropped by `drop`.
 */
export async function prepareBenchDatabase(
  work: string,
  prefix: string,
  options: { stopEmbedded?: boolean } = {},
): Promise<BenchDatabase> {
  const server = process.env.DATABASE_URL;
  if (!server) {
    const dataDir = join(work, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const postmaster = () => runningPostmaster(embeddedDatabaseDir(dataDir));
    return {
      env: { DATA_DIR: dataDir },
      url: () => {
        const pm = postmaster();
        if (!pm) throw new Error('the embedded PostgreSQL is not running');
        return runningEmbeddedUrls(dataDir, pm.port).adminUrl;
      },
      drop: () => {
        const pm = options.stopEmbedded ? postmaster() : undefined;
        if (pm) process.kill(pm.pid, 'SIGINT');
        return Promise.resolve();
      },
    };
  }
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(server, `CREATE DATABASE ${name}`);
  const u = new URL(server);
  u.pathname = `/${name}`;
  const url = u.toString();
  const env = { DATABASE_URL: url, WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };
  execFileSync(process.execPath, [resolve(ROOT, 'dist/src/migrate-cli.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    env,
    url: () => url,
    drop: () => adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
