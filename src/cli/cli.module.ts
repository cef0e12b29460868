import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../common/config/app-config.js';
import { ConfigModule } from '../common/config/config.module.js';
import { DatabaseModule } from '../common/database/database.module.js';
import { TENANT_COMMANDS } from '../modules/tenancy/cli/tenant.commands.js';
import { TenancyModule } from '../modules/tenancy/tenancy.module.js';

/**
 * The administration CLI: the same modules and services as the API, without HTTP. Each bounded
 * context contributes its commands from `modules/<context>/cli/`.
 */
@Module({})
export class CliModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.register(config), DatabaseModule, TenancyModule],
      providers: [...TENANT_COMMANDS],
    };
  }
}
