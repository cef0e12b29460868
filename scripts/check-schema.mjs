// Entities and migrations must describe the same schema: migrate a scratch database, then ask
// TypeORM what it would change to match the entities (what `migration:generate` would write).
// Anything at all fails the check, as does a table no entity maps. Runs on the built dist/ (the
// npm script builds it when stale), on DATABASE_URL's server if set, else on an embedded one.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../dist/src/common/database/data-source-options.js';
import {
  embeddedDatabaseDir,
  runningPostmaster,
  startEmbeddedDatabase,
} from '../dist/src/common/database/embedded-database.js';
import { runMigrations } from '../dist/src/common/database/migrate.js';

/** TypeORM's own bookkeeping table: no entity, by design. */
const MIGRATIONS_TABLE = 'migrations';

function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function startServer() {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  // under the system temp dir: the embedded server runs as the postgres user and must reach it
  const dir = await mkdtemp(join(tmpdir(), 'grc-schema-pg-'));
  await chmod(dir, 0o755);
  try {
    const db = await startEmbeddedDatabase(dir, 0, pino({ level: 'warn' }));
    return {
      url: db.url,
      stop: async () => {
        await db.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    const postmaster = runningPostmaster(embeddedDatabaseDir(dir));
    if (postmaster) process.kill(postmaster.pid, 'SIGINT');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The statements that would bring the migrated schema in line with the entities, and unmapped tables. */
async function drift(url) {
  await runMigrations(url);
  const ds = new DataSource({ ...dataSourceOptions(url, { mode: 'session', size: 2 }, false) });
  await ds.initialize();
  try {
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    const mapped = new Set(ds.entityMetadatas.map((m) => m.tableName));
    const tables = await ds.query(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    const unmapped = tables
      .map((t) => t.table_name)
      .filter((t) => t !== MIGRATIONS_TABLE && !mapped.has(t));
    return { queries: upQueries.map((q) => q.query), unmapped };
  } finally {
    await ds.destroy();
  }
}

const started = Date.now();
const server = await startServer();
const database = `grc_schema_check_${process.pid}`;
let failed = false;
try {
  await adminQuery(server.url, `DROP DATABASE IF EXISTS ${database}`);
  await adminQuery(server.url, `CREATE DATABASE ${database}`);
  const { queries, unmapped } = await drift(withDatabase(server.url, database));
  if (queries.length > 0) {
    failed = true;
    console.error('Entities and migrations disagree; TypeORM would run:');
    for (const q of queries) console.error(`  ${q};`);
  }
  if (unmapped.length > 0) {
    failed = true;
    console.error(`Tables without an entity: ${unmapped.join(', ')}`);
  }
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await adminQuery(server.url, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  await server.stop();
}
if (failed) {
  console.error('Fix the entity (or write a migration) so both describe the same schema.');
  process.exit(1);
}
console.log(`schema: entities match the migrations (${Date.now() - started} ms)`);
