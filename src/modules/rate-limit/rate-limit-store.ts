import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig } from '../../common/config/app-config.js';
import type { CounterStorage } from './fixed-window.js';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/** The counter store: shared through Redis when REDIS_URL is set, in process memory otherwise. */
@Injectable()
export class RateLimitStore implements OnApplicationShutdown {
  private readonly redis?: Redis;
  private readonly memory?: MemoryThrottlerStorage;
  readonly storage: CounterStorage;

  constructor(config: AppConfig) {
    if (config.REDIS_URL) {
      this.redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
      // replicas of one deployment share a database, so its name keys their shared counters
      const database = config.DATABASE_URL
        ? new URL(config.DATABASE_URL).pathname.slice(1)
        : 'embedded';
      this.storage = new RedisThrottlerStorage(this.redis, database);
    } else {
      this.memory = new MemoryThrottlerStorage();
      this.storage = this.memory;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.memory?.close();
    await this.redis?.quit().catch(() => undefined);
  }
}

@Module({ providers: [RateLimitStore], exports: [RateLimitStore] })
export class RateLimitStoreModule {}
