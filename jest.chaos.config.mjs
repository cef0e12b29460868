import { database, reporters, shared } from './jest.config.mjs';

/**
 * The fault-injection suite (`npm run test:chaos`): it spawns the built service, SIGKILLs it,
 * stops its PostgreSQL and measures recovery, so it runs one file at a time and apart from the
 * main suite, whose load would otherwise blur its deadlines.
 */
export default {
  ...shared,
  ...database,
  displayName: 'chaos',
  testMatch: ['<rootDir>/test/chaos/**/*.e2e-spec.ts'],
  maxWorkers: 1,
  testTimeout: 120_000,
  reporters,
};
