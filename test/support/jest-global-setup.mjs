import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';
import { swcOptions } from '../../jest.config.mjs';

/**
 * jest's globalSetup: starts the run's PostgreSQL (test/global-setup.ts) and keeps its teardown
 * for jest-global-teardown.mjs (both run in jest's own process).
 *
 * jest loads this file with Node's own loader, not its transform, so the TypeScript sources the
 * setup imports are compiled here with the tests' swc options, and their `./x.js` imports
 * (NodeNext) resolve to `./x.ts`. The hooks apply to files outside node_modules only, and only
 * while the setup runs.
 */
export default async function globalSetup() {
  const hooks = registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (err) {
        if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !/^\.{1,2}\/.*\.js$/.test(specifier)) throw err;
        return nextResolve(specifier.replace(/\.js$/, '.ts'), context);
      }
    },
    load(url, context, nextLoad) {
      if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
        return nextLoad(url, context);
      }
      const filename = fileURLToPath(url);
      const { code } = transformSync(readFileSync(filename, 'utf8'), {
        ...swcOptions,
        filename,
        sourceMaps: 'inline',
      });
      return { format: 'module', source: code, shortCircuit: true };
    },
  });
  try {
    const { startTestDatabase } = await import('../global-setup.ts');
    globalThis.__grcTestDatabaseTeardown = await startTestDatabase();
  } finally {
    hooks.deregister();
  }
}
