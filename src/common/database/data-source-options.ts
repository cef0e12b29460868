import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../migrations/index.js';

/** Shared by the application, the CLI and the migration runner; `synchronize` is never on. */
export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    logging: false,
    extra: {
      max: 20,
      // pipelining: a transaction's last statement and its COMMIT go out together, one round trip
      // (TenantTransactions.queryAndCommit); a connection is still used by one caller at a time
      pipeline: true,
      connectionTimeoutMillis: 5_000,
      // a statement stuck behind a dead database must fail, not hang the request forever
      statement_timeout: 15_000,
      idle_in_transaction_session_timeout: 30_000,
      application_name: 'grc-integration-api',
    },
  };
}
