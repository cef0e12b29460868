import {
  type CounterStorage,
  fixedWindowRecord,
  type ThrottlerStorageRecord,
} from './fixed-window.js';
import type { Redis } from 'ioredis';

/** Fixed window in one atomic step: count the hit, start the window on the first one. */
const HIT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }`;

/** A hit taken back only while its window lasts: DECR alone would recreate an expired key forever. */
const UNHIT = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
if hits > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Throttler counters in Redis, shared by every replica. (The published Redis storage for
 * @nestjs/throttler does not yet accept NestJS 12 as a peer; this is the whole of what it does.)
 */
export class RedisThrottlerStorage implements CounterStorage {
  /** `namespace` keeps deployments that share one Redis apart (replicas of one share it). */
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const [hits, pttl] = (await this.redis.eval(HIT, 1, this.keyOf(throttlerName, key), ttl)) as [
      number,
      number,
    ];
    return fixedWindowRecord(hits, pttl, limit);
  }

  async decrement(key: string, throttlerName: string): Promise<void> {
    await this.redis.eval(UNHIT, 1, this.keyOf(throttlerName, key));
  }

  private keyOf(throttlerName: string, key: string): string {
    return `grc:rl:${this.namespace}:${throttlerName}:${key}`;
  }
}
