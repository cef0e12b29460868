import {
  type DynamicModule,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { dataSourceOptions } from './data-source-options.js';
import { CommitAnnouncer } from './commit-announcer.js';
import { TenantTransactions } from './tenant-transactions.js';
import { PageReads } from './page-reads.js';
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

/**
 * The database connection: imported once, by the application's (or the CLI's) root module.
 * `entities`: every entity of the application, one per table (src/entities.ts): foreign keys name
 * tables of other modules, whose entities must be known too.
 */
@Module({})
class DatabaseConnectionModule {}

/**
 * TenantTransactions, PageReads and the CommitAnnouncer, on the connection `DatabaseModule.forRoot` opens: each module
 * whose repositories or services use them imports this module (one instance, shared).
 */
@Module({
  providers: [TenantTransactions, PageReads, CommitAnnouncer],
  exports: [TenantTransactions, PageReads, CommitAnnouncer],
})
export class DatabaseModule {
  /**
   * Made once per process: TypeORM registers each data source name globally and warns (through
   * the logger of the app that made it, long closed in a test run) when one is registered again.
   */
  private static root: { module: DynamicModule; entities: Entities } | undefined;

  /** The connection, for the root module (TypeORM's own module makes the DataSource global). */
  static forRoot(entities: Entities): DynamicModule {
    if (DatabaseModule.root) {
      if (DatabaseModule.root.entities !== entities) {
        throw new Error('DatabaseModule.forRoot: one entity list per process (src/entities.ts)');
      }
      return DatabaseModule.root.module;
    }
    const module: DynamicModule = {
      module: DatabaseConnectionModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            ...dataSourceOptions(
              config.DATABASE_URL!,
              { mode: config.DATABASE_POOL_MODE, size: config.DATABASE_POOL_SIZE },
              true,
              entities,
            ),
            // fail fast at start instead of retrying for half a minute
            retryAttempts: 2,
            retryDelay: 500,
          }),
        }),
      ],
      providers: [ListenNotice],
    };
    DatabaseModule.root = { module, entities };
    return module;
  }
}

type Entities = NonNullable<DataSourceOptions['entities']>;
