import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import { AppConfig } from '../../common/config/app-config.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/** The shared counter store when REDIS_URL is set; undefined keeps counters in process memory. */
@Injectable()
export class RateLimitStore implements OnApplicationShutdown {
  private readonly redis?: Redis;
  readonly storage?: ThrottlerStorage;

  constructor(config: AppConfig) {
    if (config.REDIS_URL) {
      this.redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
      // replicas of one deployment share a database, so its name keys their shared counters
      const database = config.DATABASE_URL
        ? new URL(config.DATABASE_URL).pathname.slice(1)
        : 'embedded';
      this.storage = new RedisThrottlerStorage(this.redis, database);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}

@Module({ providers: [RateLimitStore], exports: [RateLimitStore] })
export class RateLimitStoreModule {}
