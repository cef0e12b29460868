import type { ThrottlerStorage } from '@nestjs/throttler';

/** The library declares it but does not export it from its entry point. */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler storage that can also read a window without counting (both storages here). */
export interface CounterStorage extends ThrottlerStorage {
  /** The hits of `key`'s current window and the ms until it ends, counting nothing (0, 0: none). */
  peek(key: string, throttlerName: string): Promise<WindowState>;
}

/** A window as it stands: `hits` so far, `msLeft` until it ends. */
export interface WindowState {
  hits: number;
  msLeft: number;
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
