import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { SCOPES } from '../src/common/access/scopes.js';

// The testing kit is CommonJS with only `node:` imports (it loads in any consumer's jest), so it
// keeps its own copy of the scope list; this holds the copy equal to the service's.
describe('testing kit', () => {
  it('grants exactly the scopes the service knows', () => {
    const kit = createRequire(import.meta.url)('../dist/src/testing/index.cjs') as {
      ALL_SCOPES: readonly string[];
    };
    expect([...kit.ALL_SCOPES]).toEqual([...SCOPES]);
  });
});
