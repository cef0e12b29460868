import type { DynamicModule } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import type { AppConfig } from './common/config/app-config.js';
import { ConfigModule } from './common/config/config.module.js';
import type { HttpPlatform } from './common/http/platform/http-platform.js';
import { HttpPlatformModule } from './common/http/platform/http-platform.module.js';
import { LoggingModule } from './common/logging/logging.module.js';

/** What each application (the integration API, the platform API) is served with. */
export interface ServedAppOptions {
  /** The HTTP server under Nest (app.setup.ts creates it from `HTTP_ADAPTER`). */
  platform: HttpPlatform;
  /** Where log lines go (tests capture them to check that no secret leaks). */
  logDestination?: DestinationStream;
}

/** The modules each application starts with, in this order: configuration, logging, HTTP. */
export function foundationModules(config: AppConfig, options: ServedAppOptions): DynamicModule[] {
  return [
    ConfigModule.register(config),
    LoggingModule.register(config, options.logDestination),
    // right after the request logger: its middleware reads bodies (Express)
    HttpPlatformModule.register(options.platform),
  ];
}
