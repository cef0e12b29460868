import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { processHeapFlags } from './worker-heap-limits.js';

/** The build of this module (`npm test` builds first): the child runs plain JavaScript. */
const BUILT = resolve(import.meta.dirname, '../../../dist/src/common/http/worker-heap-limits.js');

describe('a worker under the heap flags of npm start', () => {
  it('reads the heap flags of the command line and NODE_OPTIONS, later ones winning', () => {
    const flags = processHeapFlags(
      ['--max-old-space-size=256', '--heap-growing-percent=150', '--max_semi_space_size=16'],
      '--max-old-space-size=512 --max-semi-space-size=4',
    );
    expect([...flags]).toEqual([
      ['max-old-space-size', '256'],
      ['max-semi-space-size', '16'],
    ]);
    expect(processHeapFlags(['--inspect'], '').size).toBe(0);
  });

  it("gets its own resourceLimits, and the main thread keeps the flags' heap", () => {
    const script = `
      import { Worker } from 'node:worker_threads';
      import { getHeapStatistics } from 'node:v8';
      import { withOwnHeapLimits } from ${JSON.stringify(BUILT)};
      const limits = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 6 };
      const code = "const get = process.getBuiltinModule; get('node:worker_threads').parentPort.postMessage(get('node:v8').getHeapStatistics().heap_size_limit)";
      const limitOf = (w) => new Promise((ok) => w.once('message', (m) => { ok(m); void w.terminate(); }));
      const own = await limitOf(withOwnHeapLimits(() => new Worker(code, { eval: true, resourceLimits: limits })));
      // flags back in place: a plain worker started after it gets them again
      const plain = await limitOf(new Worker(code, { eval: true, resourceLimits: limits }));
      process.stdout.write(JSON.stringify({ own, plain, main: getHeapStatistics().heap_size_limit }));`;
    const out = execFileSync(
      process.execPath,
      ['--max-old-space-size=256', '--max-semi-space-size=16', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const MB = 1024 * 1024;
    const { own, plain, main } = JSON.parse(out) as { own: number; plain: number; main: number };
    expect(own / MB).toBeLessThan(48);
    expect(plain / MB).toBeGreaterThan(256);
    expect(main / MB).toBeGreaterThan(256);
  });
});
