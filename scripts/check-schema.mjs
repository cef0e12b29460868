// Entities and migrations must describe the same schema: migrate a scratch database, then ask
// TypeORM what it would change to match the entities (what `migration:generate` would write).
// Anything at all fails the check, as does a table no entity maps or a constraint or index whose
// definition differs from the one the entities create. Runs on the built dist/ (the
// npm script builds it when stale), on DATABASE_URL's server if set, else on an embedded one.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../dist/src/common/database/data-source-options.js';
import { ENTITIES } from '../dist/src/entities.js';
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
      url: db.adminUrl,
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

/**
 * Checks, foreign keys, indexes, primary keys and unique constraints, as PostgreSQL prints them
 * back. The generator matches checks, foreign keys, indexes and composite uniques by name only (a
 * changed check expression, index predicate or DEFERRABLE slips through), so the check also builds
 * a second database from the entities and compares the two catalogs.
 */
const CATALOG_OBJECTS = `
  SELECT 'constraint ' || conrelid::regclass || '.' || conname AS key,
         pg_get_constraintdef(oid) AS def
    FROM pg_constraint
   WHERE connamespace = 'public'::regnamespace AND contype IN ('c', 'f')
  UNION ALL
  -- TypeORM names these itself (PK_…, UQ_…): matched by table and definition instead
  SELECT 'constraint ' || conrelid::regclass || ' ' || pg_get_constraintdef(oid), ''
    FROM pg_constraint
   WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'u')
     AND conrelid::regclass::text <> '${MIGRATIONS_TABLE}'
  UNION ALL
  SELECT 'index ' || i.indexrelid::regclass, pg_get_indexdef(i.indexrelid)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
   WHERE c.relnamespace = 'public'::regnamespace
     AND NOT EXISTS (SELECT 1 FROM pg_constraint k
                      WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))`;

async function catalogObjects(ds) {
  const rows = await ds.query(CATALOG_OBJECTS);
  return new Map(rows.map((r) => [r.key, r.def]));
}

function dataSource(url) {
  return new DataSource(dataSourceOptions(url, { mode: 'session', size: 2 }, false, ENTITIES));
}

/** What TypeORM would change in the migrated schema, and tables no entity maps. */
async function generatorDrift(migratedUrl) {
  await runMigrations(migratedUrl);
  const ds = dataSource(migratedUrl);
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
    // indexes the entities leave to the migrations (`synchronize: false`)
    const unsynced = ds.entityMetadatas.flatMap((m) =>
      m.indices.filter((i) => !i.synchronize).map((i) => `index ${i.name}`),
    );
    const migrated = await catalogObjects(ds);
    for (const key of unsynced) migrated.delete(key);
    return { queries: upQueries.map((q) => q.query), unmapped, migrated };
  } finally {
    await ds.destroy();
  }
}

/** The same objects in a database built from the entities alone. */
async function entityObjects(entitiesUrl) {
  const ds = dataSource(entitiesUrl);
  await ds.initialize();
  try {
    await ds.synchronize();
    return await catalogObjects(ds);
  } finally {
    await ds.destroy();
  }
}

const shown = (def) => (def ? ` (${def})` : '');

function compare(migrated, fromEntities) {
  const out = [];
  for (const [key, def] of migrated) {
    const other = fromEntities.get(key);
    if (other === undefined) out.push(`${key}: only in the migrations${shown(def)}`);
    else if (other !== def) out.push(`${key}: migrations ${def} / entities ${other}`);
  }
  for (const [key, def] of fromEntities) {
    if (!migrated.has(key)) out.push(`${key}: only in the entities${shown(def)}`);
  }
  return out;
}

const started = Date.now();
const server = await startServer();
const migratedDb = `grc_schema_migrated_${process.pid}`;
const entitiesDb = `grc_schema_entities_${process.pid}`;
let failed = false;
let compared = 0;
try {
  for (const db of [migratedDb, entitiesDb]) {
    await adminQuery(server.url, `DROP DATABASE IF EXISTS ${db}`);
    await adminQuery(server.url, `CREATE DATABASE ${db}`);
  }
  const { queries, unmapped, migrated } = await generatorDrift(
    withDatabase(server.url, migratedDb),
  );
  const differences = compare(migrated, await entityObjects(withDatabase(server.url, entitiesDb)));
  compared = migrated.size;
  if (queries.length > 0) {
    failed = true;
    console.error('Entities and migrations disagree; TypeORM would run:');
    for (const q of queries) console.error(`  ${q};`);
  }
  if (unmapped.length > 0) {
    failed = true;
    console.error(`Tables without an entity: ${unmapped.join(', ')}`);
  }
  if (differences.length > 0) {
    failed = true;
    console.error('Constraints or indexes differ between the migrations and the entities:');
    for (const d of differences) console.error(`  ${d}`);
  }
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.stack : err);
} finally {
  for (const db of [migratedDb, entitiesDb]) {
    await adminQuery(server.url, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
  }
  await server.stop();
}
if (failed) {
  console.error('Fix the entity (or write a migration) so both describe the same schema.');
  process.exit(1);
}
console.log(
  `schema: entities match the migrations (${compared} constraints and indexes; ${Date.now() - started} ms)`,
);
