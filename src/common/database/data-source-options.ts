import type { DataSourceOptions } from 'typeorm';
import type { ClientBase as PgClient } from 'pg';
import { MIGRATIONS } from '../../../migrations/index.js';
import type { PoolMode } from '../config/app-config.js';
import { timeoutStatements } from './statement-timeouts.js';
import { TransactionTimeoutsSubscriber } from './transaction-timeouts.subscriber.js';

export interface PoolOptions {
  mode: PoolMode;
  size: number;
}

const DEFAULT_POOL: PoolOptions = { mode: 'session', size: 20 };

/** Shared by the application, the CLI and the migration runner; `synchronize` is never on. */
export function dataSourceOptions(
  url: string,
  pool: PoolOptions = DEFAULT_POOL,
  /** false for the migration runner: a migration on a big table may rightly run for minutes */
  timeouts = true,
  /** The entities to register: src/entities.ts for the application and the drift check. */
  entities: NonNullable<DataSourceOptions['entities']> = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    entities,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    subscribers: timeouts && pool.mode === 'transaction' ? [TransactionTimeoutsSubscriber] : [],
    logging: false,
    extra: {
      max: pool.size,
      // pipelining: a transaction's last statement and its COMMIT go out together, one round trip
      // (TenantTransactions.queryAndCommit); a connection is still used by one caller at a time
      pipeline: true,
      connectionTimeoutMillis: 5_000,
      // no startup parameters but the application name (every pooler accepts that one). In
      // session mode the connection is ours: the timeouts are set once, for the session, and also
      // cover statements sent outside a transaction. In transaction mode a session SET would leak
      // to whichever client gets the server connection next; every transaction sets them LOCAL
      // (TenantTransactions), and the pooler's query_timeout bounds the single statements.
      ...(timeouts && pool.mode === 'session'
        ? {
            onConnect: async (client: PgClient) => {
              await client.query(timeoutStatements('SESSION').join('; '));
            },
          }
        : {}),
      application_name: 'grc-integration-api',
    },
  };
}
