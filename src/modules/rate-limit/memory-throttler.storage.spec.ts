import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';

describe('MemoryThrottlerStorage (fixed window)', () => {
  let storage: MemoryThrottlerStorage;
  beforeEach(() => {
    // only the clock and the timers are faked: process.nextTick and queueMicrotask stay real
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    jest.setSystemTime(new Date('2026-11-22T10:00:00.000Z'));
    storage = new MemoryThrottlerStorage();
  });
  afterEach(() => {
    storage.close();
    jest.useRealTimers();
  });

  const hit = (key = 'client:1', name = 'api') => storage.increment(key, 60_000, 2, 60_000, name);

  it('counts hits in a window and blocks past the limit, with the seconds left', async () => {
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 60,
    });
    jest.advanceTimersByTime(15_500);
    expect((await hit()).isBlocked).toBe(false);
    expect(await hit()).toEqual({
      totalHits: 3,
      timeToExpire: 45,
      isBlocked: true,
      timeToBlockExpire: 45,
    });
  });

  it('starts a new window once the old one has ended', async () => {
    await hit();
    await hit();
    expect((await hit()).isBlocked).toBe(true);
    jest.advanceTimersByTime(60_000);
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 60 });
  });

  it('keeps keys and throttlers apart', async () => {
    await hit('client:1', 'api');
    await hit('client:1', 'api');
    expect((await hit('client:2', 'api')).totalHits).toBe(1);
    expect((await hit('client:1', 'token')).totalHits).toBe(1);
  });

  it('reads a window without counting, and no window once it has ended', async () => {
    expect(await storage.peek('client:1', 'api')).toEqual({ hits: 0, msLeft: 0 });
    await hit();
    jest.advanceTimersByTime(10_000);
    expect(await storage.peek('client:1', 'api')).toEqual({ hits: 1, msLeft: 50_000 });
    expect(await storage.peek('client:1', 'api')).toEqual({ hits: 1, msLeft: 50_000 });
    expect(await storage.peek('client:1', 'token')).toEqual({ hits: 0, msLeft: 0 });
    jest.advanceTimersByTime(50_000);
    expect(await storage.peek('client:1', 'api')).toEqual({ hits: 0, msLeft: 0 });
  });

  it('forgets finished windows at the sweep', async () => {
    await hit('client:1');
    const windows = (storage as unknown as { windows: Map<string, unknown> }).windows;
    expect(windows.size).toBe(1);
    jest.advanceTimersByTime(120_000);
    expect(windows.size).toBe(0);
  });
});
