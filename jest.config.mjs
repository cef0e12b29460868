import { availableParallelism } from 'node:os';

/**
 * jest in ESM mode (`node --experimental-vm-modules`, see the npm scripts): the specs and the code
 * under test run as ES modules, as in production. Two projects: `unit` (the specs beside the code
 * and in bench/) and `e2e` (test/*.e2e-spec.ts on a real PostgreSQL, see test/global-setup.ts).
 * The fault-injection suite has a config of its own: jest.chaos.config.mjs, `npm run test:chaos`.
 */

/**
 * swc keeps decorator metadata, which Nest's dependency injection needs (as tsc does: legacy
 * decorators, ES2023 class fields); ES module output, which jest's ESM mode loads as such.
 */
export const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'es6' },
};

/** What every project shares: how a .ts file is loaded and what runs before each test file. */
export const shared = {
  rootDir: import.meta.dirname,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcOptions],
    // the CommonJS sources (the scope lists the testing kit requires) stay CommonJS
    '^.+\\.cts$': ['@swc/jest', { ...swcOptions, module: { type: 'commonjs' } }],
  },
  moduleNameMapper: {
    // sources import `./x.js` (NodeNext); jest resolves the `.ts` beside it
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // and `./x.cjs`, the `.cts` beside it if there is one (else the `.cjs`: built, or a package's)
    '^(\\.{1,2}/.*)\\.cjs$': ['$1.cts', '$1.cjs'],
  },
  setupFiles: ['<rootDir>/test/support/jest-setup.ts'],
};

/** The database the e2e files clone theirs from: started once per run, stopped at its end. */
export const database = {
  globalSetup: '<rootDir>/test/support/jest-global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.mjs',
};

export const reporters = ['default', '<rootDir>/test/support/summary-reporter.mjs'];

export default {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
    },
    {
      ...shared,
      ...database,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // fault injection (kills, outages) runs alone: `npm run test:chaos`, jest.chaos.config.mjs
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/chaos/'],
    },
  ],
  // one worker per core, at most 4: each e2e file boots the app and PostgreSQL works alongside;
  // on 2 cores 4 workers took 211 s, 2 workers 146 s (DATABASE_URL, 578 tests)
  maxWorkers: Math.min(4, availableParallelism()),
  testTimeout: 60_000,
  // the longest files first, from recorded durations where jest has none of its own (a fresh clone)
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  reporters,
};
