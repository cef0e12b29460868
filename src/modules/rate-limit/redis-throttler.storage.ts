import { FixedWindowStorage, type WindowState } from './fixed-window.js';
import type { Redis } from 'ioredis';

/** Fixed window in one atomic step: count the hit, start the window on the first one. */
const HIT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }`;

/** A window's hits and ms left, read in one step (a key without expiry is no window). */
const PEEK = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return { 0, 0 } end
return { hits, ttl }`;

/**
 * Throttler counters in Redis, shared by every replica. (The published Redis storage for
 * @nestjs/throttler does not yet accept NestJS 12 as a peer; this is the whole of what it does.)
 */
export class RedisThrottlerStorage extends FixedWindowStorage {
  /** `namespace` keeps deployments that share one Redis apart (replicas of one share it). */
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {
    super();
  }

  protected hit(key: string, ttl: number, throttlerName: string): Promise<WindowState> {
    return this.run(HIT, this.keyOf(throttlerName, key), ttl);
  }

  peek(key: string, throttlerName: string): Promise<WindowState> {
    return this.run(PEEK, this.keyOf(throttlerName, key));
  }

  /** Runs one of the scripts above on the window `redisKey`: its hits and ms left. */
  private async run(script: string, redisKey: string, ...args: number[]): Promise<WindowState> {
    const [hits, msLeft] = (await this.redis.eval(script, 1, redisKey, ...args)) as [
      number,
      number,
    ];
    return { hits, msLeft };
  }

  private keyOf(throttlerName: string, key: string): string {
    return `grc:rl:${this.namespace}:${throttlerName}:${key}`;
  }
}
