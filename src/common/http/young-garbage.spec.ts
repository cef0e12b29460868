import { describe, expect, it } from '@jest/globals';
import { collectYoungGarbage } from './young-garbage.js';

describe('collectYoungGarbage', () => {
  it("frees a dropped buffer's memory, and exposes no global gc", async () => {
    let bytes: Buffer | null = Buffer.alloc(8 * 1024 * 1024, 1);
    const held = process.memoryUsage().arrayBuffers;
    expect(bytes[0]).toBe(1);
    bytes = null;
    collectYoungGarbage();
    // V8 frees the collected buffers' memory on a thread of its own, just after
    const deadline = Date.now() + 2_000;
    while (process.memoryUsage().arrayBuffers > held - 6 * 1024 * 1024 && Date.now() < deadline) {
      await new Promise((ok) => setTimeout(ok, 10));
    }
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 6 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
