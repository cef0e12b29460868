import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../common/config/load-config.js';

/**
 * A CLI run without DATABASE_URL or DATA_DIR would make an embedded database in `./.data` of
 * whatever folder it was called from. It takes `./.data` only where one already is (a checkout
 * where `npm start` ran); anywhere else it says where it would have put one and refuses (this
 * error; null: a database is configured).
 */
export function missingDataDir(env: NodeJS.ProcessEnv, cwd: string): ConfigError | null {
  if (env.DATABASE_URL?.trim() || env.DATA_DIR?.trim()) return null;
  const dir = resolve(cwd, '.data');
  if (existsSync(dir)) return null;
  return new ConfigError(
    `no database: DATABASE_URL and DATA_DIR are unset, and there is no ${dir} (no service ran ` +
      `here). Set DATA_DIR to the service's data directory (or to where a new embedded database ` +
      `should be made), or DATABASE_URL; nothing was created.`,
  );
}
