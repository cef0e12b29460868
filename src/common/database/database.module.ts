import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config.js';
import { dataSourceOptions } from './data-source-options.js';
import { CredentialCache } from './credential-cache.js';
import { TenantTransactions } from './tenant-transactions.js';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.DATABASE_URL!),
        autoLoadEntities: true,
        // fail fast at start instead of retrying for half a minute
        retryAttempts: 2,
        retryDelay: 500,
      }),
    }),
  ],
  providers: [TenantTransactions, CredentialCache],
  exports: [TenantTransactions, CredentialCache],
})
export class DatabaseModule {}
