import type { ThrottlerStorage } from '@nestjs/throttler';

/** The library declares it but does not export it from its entry point. */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler storage that can also take a hit back (both storages here). */
export interface CounterStorage extends ThrottlerStorage {
  /**
   * Takes one hit of `key` back, within its current window only: a window that has ended is
   * neither reopened nor carried below zero.
   */
  decrement(key: string, throttlerName: string): Promise<void>;
}

/**
 * What a throttler storage answers for a fixed window: `hits` so far in it, `msLeft` until it
 * ends. Both storages (memory, Redis) count alike through this.
 */
export function fixedWindowRecord(
  hits: number,
  msLeft: number,
  limit: number,
): ThrottlerStorageRecord {
  const seconds = Math.ceil(msLeft / 1000);
  return {
    totalHits: hits,
    timeToExpire: seconds,
    isBlocked: hits > limit,
    timeToBlockExpire: seconds,
  };
}
