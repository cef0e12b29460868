import { randomBytes } from 'node:crypto';
import { adminQuery, withDatabase } from './pg-url.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Set by the run's global setup (test/global-setup.ts); jest's workers inherit the environment. */
export const PG_SERVER_URL_ENV = 'GRC_TEST_PG_SERVER_URL';
export const TEMPLATE_DB_ENV = 'GRC_TEST_TEMPLATE_DB';

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
  return {
    url: withDatabase(server, name),
    drop: () => adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
