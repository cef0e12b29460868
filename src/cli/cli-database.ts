import { pino } from 'pino';
import type { AppConfig } from '../common/config/app-config.js';
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
 * Returns a function that stops what this call started.
 */
export async function connectCliDatabase(config: AppConfig): Promise<() => Promise<void>> {
  if (!config.embedded) return async () => {};
  config.WEBHOOK_SECRET_KEY ??= await ensureLocalSecretKey(config.DATA_DIR);
  const running = runningPostmaster(embeddedDatabaseDir(config.DATA_DIR));
  if (running && !running.orphaned) {
    config.DATABASE_URL = runningEmbeddedUrls(config.DATA_DIR, running.port).url;
    return async () => {};
  }
  const db = await startEmbeddedDatabase(
    config.DATA_DIR,
    0,
    pino({ level: 'warn' }, pino.destination(2)),
  );
  config.DATABASE_URL = db.url;
  await runMigrations(db.adminUrl);
  return () => db.stop();
}
