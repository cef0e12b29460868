import { describe, expect, it } from '@jest/globals';
import { SharedReading } from './shared-reading.js';

describe('SharedReading', () => {
  function counted(fail = false) {
    let clock = 0;
    let reads = 0;
    const reading = new SharedReading(
      async () => {
        reads += 1;
        if (fail) throw new Error(`read ${reads} failed`);
        return reads;
      },
      5_000,
      () => clock,
    );
    return { reading, reads: () => reads, advance: (ms: number) => (clock += ms) };
  }

  it('reads once for callers at the same time and within the age, again after it', async () => {
    const r = counted();
    const answers = await Promise.all(Array.from({ length: 50 }, () => r.reading.get()));
    expect(new Set(answers)).toEqual(new Set([1]));
    r.advance(4_999);
    expect(await r.reading.get()).toBe(1);
    r.advance(1);
    expect(await r.reading.get()).toBe(2);
    expect(r.reads()).toBe(2);
  });

  it('shares a read in progress however long it takes; the age counts from its answer', async () => {
    let clock = 0;
    let reads = 0;
    let answer: (n: number) => void = () => undefined;
    const reading = new SharedReading(
      () =>
        new Promise<number>((ok) => {
          reads += 1;
          answer = ok;
        }),
      5_000,
      () => clock,
    );
    const first = reading.get();
    clock += 60_000;
    const second = reading.get();
    expect(reads).toBe(1);
    answer(7);
    expect(await first).toBe(7);
    expect(await second).toBe(7);
    clock += 4_999;
    expect(await reading.get()).toBe(7);
    expect(reads).toBe(1);
  });

  it('keeps no failure: the next caller reads again', async () => {
    const r = counted(true);
    const both = [r.reading.get(), r.reading.get()];
    await expect(both[0]).rejects.toThrow('read 1 failed');
    await expect(both[1]).rejects.toThrow('read 1 failed');
    await expect(r.reading.get()).rejects.toThrow('read 2 failed');
  });
});
