import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { SCOPES } from '../src/common/access/scopes.js';
import { PLATFORM_SCOPES } from '../src/modules/platform-keys/platform-scopes.js';

// The testing kit is CommonJS (it loads in any consumer's jest): it requires the service's scope
// lists (CommonJS files of their own); this holds what the built kit exports equal to them.
describe('testing kit', () => {
  const kit = createRequire(import.meta.url)('../dist/src/testing/index.cjs') as {
    ALL_SCOPES: readonly string[];
    ALL_PLATFORM_SCOPES: readonly string[];
  };

  it('grants exactly the scopes the service knows', () => {
    expect([...kit.ALL_SCOPES]).toEqual([...SCOPES]);
  });

  it("gives its platform key exactly the platform API's scopes", () => {
    expect([...kit.ALL_PLATFORM_SCOPES]).toEqual([...PLATFORM_SCOPES]);
  });
});
