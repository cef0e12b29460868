import { loadConfig } from './common/config/load-config.js';
import { runMigrations } from './common/database/migrate.js';

/** `npm run migration:run`: applies pending migrations to DATABASE_URL. */
const config = loadConfig();
if (!config.DATABASE_URL) {
  process.stderr.write('DATABASE_URL is required (embedded mode migrates at start)\n');
  process.exit(2);
}
const ran = await runMigrations(config.DATABASE_URL, config.DATABASE_POOL_MODE);
process.stdout.write(`${JSON.stringify({ applied: ran })}\n`);
