import { describe, expect, it } from '@jest/globals';
import { CallerGoneError } from './caller-signal.js';
import { KeyedSlots } from './keyed-slots.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedSlots', () => {
  it('lets `slots` holders of one key in at once, the next in order as each leaves', async () => {
    const slots = new KeyedSlots();
    const entered: number[] = [];
    const releases = new Map<number, () => void>();
    for (let i = 0; i < 5; i++) {
      void slots.acquire('a', 2).then((release) => {
        entered.push(i);
        releases.set(i, release);
      });
    }
    await tick();
    expect(entered).toEqual([0, 1]);
    releases.get(1)!();
    releases.get(1)!(); // a second release frees nothing more
    await tick();
    expect(entered).toEqual([0, 1, 2]);
    releases.get(0)!();
    releases.get(2)!();
    await tick();
    expect(entered).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps keys apart, and forgets a key once no slot of it is held', async () => {
    const slots = new KeyedSlots();
    const a = await slots.acquire('a', 1);
    const b = await slots.acquire('b', 1);
    expect(slots.size).toBe(2);
    a();
    b();
    expect(slots.size).toBe(0);
  });

  it('lets a waiter whose signal aborts leave the queue, its turn passing to the next', async () => {
    const slots = new KeyedSlots();
    const first = await slots.acquire('a', 1);
    const gone = new AbortController();
    const leaving = slots.acquire('a', 1, gone.signal);
    const entered: string[] = [];
    void slots.acquire('a', 1).then((release) => {
      entered.push('third');
      release();
    });
    gone.abort();
    await expect(leaving).rejects.toBeInstanceOf(CallerGoneError);
    first();
    await tick();
    expect(entered).toEqual(['third']);
    expect(slots.size).toBe(0);
    // one already gone does not queue at all
    const held = await slots.acquire('a', 1);
    await expect(slots.acquire('a', 1, gone.signal)).rejects.toBeInstanceOf(CallerGoneError);
    held();
    expect(slots.size).toBe(0);
  });
});
