import swc from 'unplugin-swc';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // swc keeps decorator metadata, which Nest's dependency injection needs (esbuild drops it)
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    include: ['src/**/*.spec.ts', 'bench/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    // fault injection (kills, outages) runs alone: `npm run test:chaos`, vitest.chaos.config.ts
    exclude: [...configDefaults.exclude, 'test/chaos/**'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 4,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
