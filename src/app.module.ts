import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { DestinationStream } from 'pino';
import type { AppConfig } from './common/config/app-config.js';
import { ConfigModule } from './common/config/config.module.js';
import { DatabaseModule } from './common/database/database.module.js';
import { NotFoundModule } from './common/http/not-found.module.js';
import { LoggingModule } from './common/logging/logging.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { TenancyModule } from './modules/tenancy/tenancy.module.js';

export interface AppModuleOptions {
  /** Where log lines go (tests capture them to check that no secret leaks). */
  logDestination?: DestinationStream;
}

@Module({})
export class AppModule {
  static register(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.register(config),
        LoggingModule.register(config, options.logDestination),
        DatabaseModule,
        ScheduleModule.forRoot(),
        TenancyModule,
        AuthModule,
        HealthModule,
        // keep last: its catch-all route must come after every real route
        NotFoundModule,
      ],
    };
  }
}
