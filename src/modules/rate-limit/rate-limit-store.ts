import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig } from '../../common/config/app-config.js';
import type { CounterStorage } from './fixed-window.js';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/**
 * The counter store: shared through Redis when REDIS_URL is set, in process memory otherwise.
 * Made on first use: the CLI builds the authentication module, and so this, but counts nothing
 * and must not connect to Redis.
 */
@Injectable()
export class RateLimitStore implements OnApplicationShutdown {
  private redis?: Redis;
  private memory?: MemoryThrottlerStorage;
  private made?: CounterStorage;

  constructor(private readonly config: AppConfig) {}

  get storage(): CounterStorage {
    this.made ??= this.make();
    return this.made;
  }

  private make(): CounterStorage {
    const { REDIS_URL, DATABASE_URL } = this.config;
    if (!REDIS_URL) {
      this.memory = new MemoryThrottlerStorage();
      return this.memory;
    }
    this.redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
    // replicas of one deployment share a database, so its name keys their shared counters
    const database = DATABASE_URL ? new URL(DATABASE_URL).pathname.slice(1) : 'embedded';
    return new RedisThrottlerStorage(this.redis, database);
  }

  async onApplicationShutdown(): Promise<void> {
    this.memory?.close();
    await this.redis?.quit().catch(() => undefined);
  }
}

@Module({ providers: [RateLimitStore], exports: [RateLimitStore] })
export class RateLimitStoreModule {}
