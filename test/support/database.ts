import { randomBytes } from 'node:crypto';
import { adminQuery, withDatabase } from './pg-url.js';

export interface TestDatabase {
  /** What the service connects to: the run's pooler when it has one, else PostgreSQL itself. */
  url: string;
  /** PostgreSQL itself, never through a pooler (LISTEN, administration). */
  directUrl: string;
  /**
   * `DATABASE_URL` for a service or CLI process on this database and, behind the run's
   * transaction pooler, `DATABASE_POOL_MODE` and `DATABASE_LISTEN_URL` to go with it.
   */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** Set by the run's global setup (test/global-setup.ts); jest's workers inherit the environment. */
export const PG_SERVER_URL_ENV = 'GRC_TEST_PG_SERVER_URL';
export const TEMPLATE_DB_ENV = 'GRC_TEST_TEMPLATE_DB';
/** Set when the run goes through a PgBouncer (`TEST_PGBOUNCER=transaction npm test`). */
export const POOLER_URL_ENV = 'GRC_TEST_POOLER_URL';
export const POOLER_MODE_ENV = 'GRC_TEST_POOLER_MODE';

function fromGlobalSetup(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run the e2e files through jest's e2e project (npm test)`);
  }
  return value;
}

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = fromGlobalSetup(PG_SERVER_URL_ENV);
  const template = fromGlobalSetup(TEMPLATE_DB_ENV);
  const name = `grc_test_${randomBytes(6).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(server, `CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (err) {
      // another file cloning the template at the same moment holds it briefly
      if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const directUrl = withDatabase(server, name);
  const pooler = process.env[POOLER_URL_ENV];
  const url = pooler ? withDatabase(pooler, name) : directUrl;
  const env: Record<string, string> = { DATABASE_URL: url };
  if (pooler && process.env[POOLER_MODE_ENV] === 'transaction') {
    env.DATABASE_POOL_MODE = 'transaction';
    env.DATABASE_LISTEN_URL = directUrl;
  }
  return {
    url,
    directUrl,
    env,
    drop: () => adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
