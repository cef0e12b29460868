import { describe, expect, it } from '@jest/globals';
import { jsonbBytes } from './canonical-json.js';
import { PreparedJson, releasePrepared } from './prepared-json.js';

describe('PreparedJson', () => {
  it("frees each prepared member's canonical JSON once released, at once", () => {
    const text = `{"a":"${'x'.repeat(16 * 1024 * 1024)}"}`;
    const member = { key: 'content', array: false, nodes: 2, problem: null, hash: 'h' };
    const body = {
      content: new PreparedJson({ ...member, jsonb: jsonbBytes(text) }),
      other: new PreparedJson({ ...member, key: 'other', jsonb: jsonbBytes('[]') }),
      plain: 'kept',
    };
    expect(body.content.canonical).toBe(text);
    const held = process.memoryUsage().arrayBuffers;
    releasePrepared(body);
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 15 * 1024 * 1024);
    expect(() => body.content.jsonb).toThrow('released');
    expect(() => body.other.jsonb).toThrow('released');
    expect(body.plain).toBe('kept');
  });
});
