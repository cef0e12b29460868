import { Global, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config.js';
import { dataSourceOptions } from './data-source-options.js';
import { TenantTransactions } from './tenant-transactions.js';
import { listenUrl, NO_LISTEN_NOTICE } from './listen-connection.js';

/** Says at start-up what this process gives up when it cannot LISTEN. */
@Injectable()
export class ListenNotice implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    if (listenUrl(this.config) === undefined) this.logger.warn(NO_LISTEN_NOTICE);
  }
}

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.DATABASE_URL!, {
          mode: config.DATABASE_POOL_MODE,
          size: config.DATABASE_POOL_SIZE,
        }),
        autoLoadEntities: true,
        // fail fast at start instead of retrying for half a minute
        retryAttempts: 2,
        retryDelay: 500,
      }),
    }),
  ],
  providers: [TenantTransactions, ListenNotice],
  exports: [TenantTransactions],
})
export class DatabaseModule {}
