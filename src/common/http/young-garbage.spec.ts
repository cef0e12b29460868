import { describe, expect, it } from '@jest/globals';
import { collectYoungGarbage } from './young-garbage.js';

describe('collectYoungGarbage', () => {
  it("frees a dropped buffer's memory at once, and exposes no global gc", () => {
    let bytes: Buffer | null = Buffer.alloc(32 * 1024 * 1024, 1);
    const held = process.memoryUsage().arrayBuffers;
    expect(bytes[0]).toBe(1);
    bytes = null;
    collectYoungGarbage();
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 16 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
