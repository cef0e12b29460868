import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

/**
 * The fault-injection suite (`npm run test:chaos`): it spawns the built service, SIGKILLs it,
 * stops its PostgreSQL and measures recovery, so it runs one file at a time and apart from the
 * main suite, whose load would otherwise blur its deadlines.
 */
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    include: ['test/chaos/**/*.e2e-spec.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
