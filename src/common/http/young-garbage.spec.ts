import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

/** The build of this module (`npm test` builds first): run in a quiet process of its own. */
const BUILT = resolve(import.meta.dirname, '../../../dist/src/common/http/young-garbage.js');

describe('collectYoungGarbage', () => {
  it("frees a dropped buffer's memory within moments, and exposes no global gc", () => {
    // without it, nothing in a quiet process collects the buffer for seconds
    const script = `
      import { collectYoungGarbage } from ${JSON.stringify(BUILT)};
      let bytes = Buffer.alloc(8 * 1024 * 1024, 1);
      const held = process.memoryUsage().arrayBuffers;
      bytes = null;
      collectYoungGarbage();
      // V8 frees the collected buffers' memory on a thread of its own, just after
      const deadline = Date.now() + 500;
      while (process.memoryUsage().arrayBuffers > held - 6 * 1024 * 1024 && Date.now() < deadline) {
        await new Promise((ok) => setTimeout(ok, 10));
      }
      const freed = process.memoryUsage().arrayBuffers <= held - 6 * 1024 * 1024;
      process.stdout.write(JSON.stringify({ freed, gc: typeof globalThis.gc }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ freed: true, gc: 'undefined' });
  });
});
