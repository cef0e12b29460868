import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { keepMallocSettingsFromChildren, SERVICE_MALLOC_ENV } from './service-malloc-env.js';

const ROOT = resolve(import.meta.dirname, '../../..');

describe("the service's malloc settings", () => {
  it('are what npm start and the container image set', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const assignments = Object.entries(SERVICE_MALLOC_ENV).map(([k, v]) => `${k}=${v}`);
    expect(pkg.scripts['start']).toMatch(new RegExp(`^${assignments.join(' ')} node `));
    const dockerfile = readFileSync(resolve(ROOT, 'docker/Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`ENV ${assignments.join(' ')}\n`);
  });

  it("are taken out of the children's environment, an operator's other values kept", () => {
    const env: NodeJS.ProcessEnv = {
      ...SERVICE_MALLOC_ENV,
      MALLOC_TRIM_THRESHOLD_: '1048576',
      PATH: '/bin',
    };
    keepMallocSettingsFromChildren(env);
    expect(env).toEqual({ MALLOC_TRIM_THRESHOLD_: '1048576', PATH: '/bin' });
  });
});
