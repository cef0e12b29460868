import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { foundationModules, type ServedAppOptions } from '../app-foundation.js';
import type { AppConfig } from '../common/config/app-config.js';
import { NotFoundModule } from '../common/http/not-found.module.js';
import { PlatformBodyAdmission } from './platform-body-admission.js';
import { PLATFORM_CONTROLLERS } from './platform-controllers.js';
import { PlatformKeyGuard } from './platform-key.guard.js';
import { PlatformKeyStrategy } from './platform-key.strategy.js';
import { PlatformKeyVerifier } from './platform-key-verifier.js';
import { PlatformMetricsController } from './platform-metrics.controller.js';
import { SharedServicesModule } from './shared-services.module.js';

/** The platform API's routes, registered before the catch-all, on the shared services. */
@Module({})
class PlatformRoutesModule {
  static on(shared: DynamicModule): DynamicModule {
    return {
      module: PlatformRoutesModule,
      imports: [shared],
      controllers: [...PLATFORM_CONTROLLERS, PlatformMetricsController],
    };
  }
}

export interface PlatformApiModuleOptions extends ServedAppOptions {
  /** The integration application, whose service instances this one shares. */
  owner: INestApplication;
}

/**
 * The platform API's application: its own routes, guard (platform keys), OpenAPI document and
 * catch-all, on the integration application's services (`SharedServicesModule`).
 */
@Module({})
export class PlatformApiModule {
  static register(config: AppConfig, options: PlatformApiModuleOptions): DynamicModule {
    // one module instance: its providers are imported here and by the routes' module
    const shared = SharedServicesModule.from(options.owner);
    return {
      module: PlatformApiModule,
      imports: [
        ...foundationModules(config, options),
        shared,
        PassportModule.register({ session: false }),
        PlatformRoutesModule.on(shared),
        // keep last: its catch-all route must come after every real route
        NotFoundModule.register(options.platform),
      ],
      providers: [
        PlatformBodyAdmission,
        PlatformKeyVerifier,
        PlatformKeyStrategy,
        { provide: APP_GUARD, useClass: PlatformKeyGuard },
      ],
    };
  }
}
