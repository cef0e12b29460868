import { type ExecutionContext, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../../common/config/app-config.js';
import type { HttpPlatform, HttpRequest } from '../../common/http/platform/http-platform.js';
import { HTTP_PLATFORM } from '../../common/http/platform/http-platform.module.js';
import { ClientAuthFailuresInterceptor } from './client-auth-failures.interceptor.js';
import { isTokenRequest, RateLimitGuard } from './rate-limit.guard.js';
import { RateLimitStore, RateLimitStoreModule } from './rate-limit-store.js';

const MINUTE = 60_000;

/**
 * Request rate limits (@nestjs/throttler). Import after AuthModule: its guard must run after the
 * authentication guard so API calls are counted per credential.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [AppConfig, RateLimitStore, HTTP_PLATFORM],
      useFactory: (config: AppConfig, store: RateLimitStore, platform: HttpPlatform) => {
        const isToken = (ctx: ExecutionContext): boolean =>
          isTokenRequest(platform, ctx.switchToHttp().getRequest<HttpRequest>());
        return {
          storage: store.storage,
          throttlers: [
            {
              name: 'api',
              ttl: MINUTE,
              limit: config.RATE_LIMIT_API_PER_MINUTE,
              skipIf: (ctx) => config.RATE_LIMIT_API_PER_MINUTE === 0 || isToken(ctx),
            },
            {
              name: 'token',
              ttl: MINUTE,
              limit: config.RATE_LIMIT_TOKEN_PER_MINUTE,
              skipIf: (ctx) => config.RATE_LIMIT_TOKEN_PER_MINUTE === 0 || !isToken(ctx),
            },
          ],
        };
      },
    }),
    RateLimitStoreModule,
  ],
  providers: [
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_INTERCEPTOR, useClass: ClientAuthFailuresInterceptor },
  ],
})
export class RateLimitModule {}
