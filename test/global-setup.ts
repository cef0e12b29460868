import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase } from '../src/common/database/embedded-database.js';
import { runMigrations } from '../src/common/database/migrate.js';
import { adminQuery, withDatabase } from './support/pg-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
    templateDatabase: string;
  }
}

/**
 * Once per run: a real PostgreSQL (the embedded one unless DATABASE_URL is set), migrations into a
 * template database; every test file then clones its own database from the template.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let serverUrl = process.env.DATABASE_URL;
  let stop = async (): Promise<void> => {};
  if (!serverUrl) {
    // under the system temp dir: the embedded server runs as the postgres user and must reach it
    const dir = await mkdtemp(join(tmpdir(), 'grc-test-pg-'));
    await chmod(dir, 0o755);
    const db = await startEmbeddedDatabase(dir, 0, pino({ level: 'warn' }));
    serverUrl = db.url;
    stop = async () => {
      await db.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const template = `grc_template_${process.pid}`;
  await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${template}`);
  await adminQuery(serverUrl, `CREATE DATABASE ${template}`);
  await runMigrations(withDatabase(serverUrl, template));
  project.provide('pgServerUrl', serverUrl);
  project.provide('templateDatabase', template);

  return async () => {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {});
    await stop();
  };
}
