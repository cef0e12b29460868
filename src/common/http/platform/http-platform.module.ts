import {
  type DynamicModule,
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnModuleInit,
  RequestMethod,
} from '@nestjs/common';
import type { HttpPlatform } from './http-platform.js';

/** Injection token of the application's `HttpPlatform`. */
export const HTTP_PLATFORM = Symbol('HttpPlatform');

/**
 * Makes the application's platform injectable (the problem filter and the rate-limit guard ask it
 * for route patterns) and applies its middleware. Import it right after the logging module: Nest
 * applies modules' middleware in import order, and a body must be read after the request's log
 * line has been set up.
 */
@Module({})
export class HttpPlatformModule implements NestModule, OnModuleInit {
  static register(platform: HttpPlatform): DynamicModule {
    return {
      module: HttpPlatformModule,
      global: true,
      providers: [{ provide: HTTP_PLATFORM, useValue: platform }],
      exports: [HTTP_PLATFORM],
    };
  }

  constructor(@Inject(HTTP_PLATFORM) private readonly platform: HttpPlatform) {}

  /** Nest has registered the routes, not yet its own not-found and error handlers. */
  onModuleInit(): void {
    this.platform.afterRoutes();
  }

  configure(consumer: MiddlewareConsumer): void {
    const middleware = this.platform.middleware();
    if (middleware.length === 0) return;
    consumer.apply(...middleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
