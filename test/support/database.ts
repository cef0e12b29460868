import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { adminQuery, withDatabase } from './pg-url.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = inject('pgServerUrl');
  const template = inject('templateDatabase');
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
