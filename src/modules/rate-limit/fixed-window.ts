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
 * A throttler storage that counts in fixed windows, as both storages here (memory, Redis) do: the
 * first hit of a key starts its window of `ttl` ms; past `limit` hits in it, the key is blocked
 * until the window ends (`blockDuration` plays no part).
 */
export abstract class FixedWindowStorage implements CounterStorage {
  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const { hits, msLeft } = await this.hit(key, ttl, throttlerName);
    return fixedWindowRecord(hits, msLeft, limit);
  }

  /** Counts one hit of `key`, starting its window of `ttl` ms if none runs: the window after it. */
  protected abstract hit(
    key: string,
    ttl: number,
    throttlerName: string,
  ): WindowState | Promise<WindowState>;

  abstract peek(key: string, throttlerName: string): Promise<WindowState>;
}

/** What a throttler storage answers for a fixed window: `hits` so far in it, `msLeft` until it ends. */
function fixedWindowRecord(hits: number, msLeft: number, limit: number): ThrottlerStorageRecord {
  const seconds = Math.ceil(msLeft / 1000);
  return {
    totalHits: hits,
    timeToExpire: seconds,
    isBlocked: hits > limit,
    timeToBlockExpire: seconds,
  };
}
