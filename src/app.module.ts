import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { foundationModules, type ServedAppOptions } from './app-foundation.js';
import type { AppConfig } from './common/config/app-config.js';
import { ENTITIES } from './entities.js';
import { DatabaseModule } from './common/database/database.module.js';
import { NotFoundModule } from './common/http/not-found.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { DocumentsModule } from './modules/documents/documents.module.js';
import { EventsModule } from './modules/events/events.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { MetricsRouteModule } from './modules/metrics/metrics.module.js';
import { RateLimitModule } from './modules/rate-limit/rate-limit.module.js';
import { LocksModule } from './modules/locks/locks.module.js';
import { PlatformKeysModule } from './modules/platform-keys/platform-keys.module.js';
import { ProjectsModule } from './modules/projects/projects.module.js';
import { RetentionModule } from './modules/retention/retention.module.js';
import { RevisionsModule } from './modules/revisions/revisions.module.js';
import { ContentModule } from './modules/content/content.module.js';
import { DemoModule } from './demo/demo.module.js';
import { TenancyModule } from './modules/tenancy/tenancy.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';

@Module({})
export class AppModule {
  static register(config: AppConfig, options: ServedAppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...foundationModules(config, options),
        DatabaseModule.forRoot(ENTITIES),
        ScheduleModule.forRoot(),
        AuditModule,
        TenancyModule,
        AuthModule,
        // after AuthModule: its guard counts per authenticated credential
        RateLimitModule,
        HealthModule,
        MetricsRouteModule.register(config),
        WebhooksModule,
        EventsModule,
        LocksModule,
        ProjectsModule,
        DocumentsModule,
        RevisionsModule,
        ContentModule,
        DemoModule,
        RetentionModule,
        PlatformKeysModule,
        // keep last: its catch-all route must come after every real route
        NotFoundModule.register(options.platform, ['platform']),
      ],
    };
  }
}
