import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { envOf, nodeFlagsOf, startScriptEnv, startScriptFlags } from './service-flags.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('the heap flags the service runs with', () => {
  it('are the same for npm start (and so the benchmark) and the container image', () => {
    const dockerfile = readFileSync(resolve(ROOT, 'docker/Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd).toBeDefined();
    const image = nodeFlagsOf((JSON.parse(cmd ?? '[]') as string[]).join(' '));
    expect(image).toEqual(startScriptFlags(ROOT));
  });

  it('bound the old generation, let it grow 2.5× its live size between full collections, and keep the young one at 16 MB semi-spaces', () => {
    // see docs/operators/deployment.md, bench/README.md "Heap growing factor" and "Young generation"
    expect(startScriptFlags(ROOT)).toEqual([
      '--max-old-space-size=256',
      '--heap-growing-percent=150',
      '--max-semi-space-size=16',
    ]);
  });

  it('reads only the flags before the script', () => {
    expect(nodeFlagsOf('node --a=1 --b dist/x.js --not-a-flag')).toEqual(['--a=1', '--b']);
    expect(nodeFlagsOf('A=1 B_=x node --a=1 dist/x.js')).toEqual(['--a=1']);
    expect(() => nodeFlagsOf('tsx src/main.ts')).toThrow(/not a node command line/);
  });

  it("reads the environment set before node, and npm start's is glibc's malloc settings", () => {
    expect(envOf('A=1 B_=x node --a=1 C=2 dist/x.js')).toEqual({ A: '1', B_: 'x' });
    expect(envOf('node dist/x.js')).toEqual({});
    expect(startScriptEnv(ROOT)).toEqual({
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '131072',
    });
  });
});
