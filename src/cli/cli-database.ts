import { pino } from 'pino';
import type { AppConfig } from '../common/config/app-config.js';
import { configWith } from '../common/config/load-config.js';
import { ensureLocalSecretKey } from '../common/config/local-secret-key.js';
import { runningEmbeddedUrls } from '../common/database/embedded-access.js';
import {
  embeddedDatabaseDir,
  runningPostmaster,
  startEmbeddedDatabase,
} from '../common/database/embedded-database.js';
import { runMigrations } from '../common/database/migrate.js';

/**
 * Points the CLI at its database. With DATABASE_URL, that server. Otherwise the embedded one under
 * DATA_DIR: the running service's when `npm start` is up, else one started for this command only;
 * either way as the service's own login (migrations as the superuser).
 * Returns the config with that database (a new one: `config` stays as validated) and a function
 * that stops what this call started.
 */
export async function connectCliDatabase(
  config: AppConfig,
): Promise<{ config: AppConfig; release: () => Promise<void> }> {
  if (!config.embedded) return { config, release: async () => {} };
  const WEBHOOK_SECRET_KEY =
    config.WEBHOOK_SECRET_KEY ?? (await ensureLocalSecretKey(config.DATA_DIR));
  const running = runningPostmaster(embeddedDatabaseDir(config.DATA_DIR));
  if (running && !running.orphaned) {
    const DATABASE_URL = runningEmbeddedUrls(config.DATA_DIR, running.port).url;
    return {
      config: configWith(config, { DATABASE_URL, WEBHOOK_SECRET_KEY }),
      release: async () => {},
    };
  }
  const db = await startEmbeddedDatabase(
    config.DATA_DIR,
    0,
    pino({ level: 'warn' }, pino.destination(2)),
  );
  await runMigrations(db.adminUrl);
  return {
    config: configWith(config, { DATABASE_URL: db.url, WEBHOOK_SECRET_KEY }),
    release: () => db.stop(),
  };
}
