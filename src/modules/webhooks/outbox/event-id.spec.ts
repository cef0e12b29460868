import { describe, expect, it } from '@jest/globals';
import { newEventId } from './event-id.js';

describe('newEventId', () => {
  it('is evt_ and a 26-character ULID whose first 10 characters are the millisecond time', () => {
    const id = newEventId(1_795_400_000_000);
    expect(id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    // 1795400000000 in Crockford base32, 10 digits
    let t = 1_795_400_000_000;
    let time = '';
    for (let i = 0; i < 10; i++) {
      time = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[t % 32]! + time;
      t = Math.floor(t / 32);
    }
    expect(id.slice(4, 14)).toBe(time);
    expect(newEventId(0).slice(4, 14)).toBe('0000000000');
  });

  it('never repeats, across many refills of its random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) seen.add(newEventId(42));
    expect(seen.size).toBe(5_000);
  });

  it('uses every random digit: each of the 16 positions takes many values', () => {
    const ids = Array.from({ length: 2_000 }, () => newEventId(42).slice(14));
    for (let pos = 0; pos < 16; pos++) {
      expect(new Set(ids.map((id) => id[pos])).size).toBeGreaterThan(24);
    }
  });
});
