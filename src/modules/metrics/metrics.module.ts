import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../../common/config/app-config.js';
import { DatabaseModule } from '../../common/database/database.module.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsRepository } from './metrics.repository.js';
import { MetricsService } from './metrics.service.js';

/** Request timing is a hook of the HTTP platform, installed by app.setup.ts (route-label.ts). */
@Module({
  imports: [DatabaseModule],
  providers: [MetricsService, MetricsRepository],
  exports: [MetricsService],
})
export class MetricsModule {}

/**
 * The `/metrics` route of the API port, there only when METRICS_TOKEN is set: otherwise the path
 * is answered as any unknown route. (A module of its own: MetricsModule stays one static module,
 * so every module that imports it shares one registry.)
 */
@Module({})
export class MetricsRouteModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: MetricsRouteModule,
      imports: [MetricsModule],
      controllers: config.METRICS_TOKEN ? [MetricsController] : [],
    };
  }
}
