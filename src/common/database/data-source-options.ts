import type { DataSourceOptions } from 'typeorm';
import type { ClientBase as PgClient } from 'pg';
import { MIGRATIONS } from '../../../migrations/index.js';
import type { PoolMode } from '../config/app-config.js';
import { timeoutStatements } from './statement-timeouts.js';
import { TransactionTimeoutsSubscriber } from './transaction-timeouts.subscriber.js';
// The one place common/ reaches into the modules: the DataSource must know every table's entity
// (foreign keys name their targets, and scripts/check-schema.mjs compares them with migrations).
import { AuditLogEntry } from '../../modules/audit/entities/audit-log-entry.entity.js';
import { AccessToken } from '../../modules/auth/entities/access-token.entity.js';
import { ApiClient } from '../../modules/auth/entities/api-client.entity.js';
import { CredentialGeneration } from '../../modules/auth/entities/credential-generation.entity.js';
import { PersonalAccessToken } from '../../modules/auth/entities/personal-access-token.entity.js';
import { DocumentVersion } from '../../modules/documents/entities/document-version.entity.js';
import { DocumentEntity } from '../../modules/documents/entities/document.entity.js';
import { EventEntity } from '../../modules/events/entities/event.entity.js';
import { DocumentLock } from '../../modules/locks/entities/document-lock.entity.js';
import { ProjectCount } from '../../modules/projects/entities/project-count.entity.js';
import { ProjectFile } from '../../modules/projects/entities/project-file.entity.js';
import { Project } from '../../modules/projects/entities/project.entity.js';
import { ExternalRevision } from '../../modules/revisions/entities/external-revision.entity.js';
import { IdempotencyKey } from '../../modules/revisions/entities/idempotency-key.entity.js';
import { EntitlementOverride } from '../../modules/tenancy/entities/entitlement-override.entity.js';
import { Tenant } from '../../modules/tenancy/entities/tenant.entity.js';
import { WebhookDeliveryAttemptEntity } from '../../modules/webhooks/entities/webhook-delivery-attempt.entity.js';
import { WebhookDeliveryEntity } from '../../modules/webhooks/entities/webhook-delivery.entity.js';
import { WebhookEntity } from '../../modules/webhooks/entities/webhook.entity.js';

export interface PoolOptions {
  mode: PoolMode;
  size: number;
}

/** One entity per table the migrations create; the modules' forFeature lists are subsets. */
export const ENTITIES = [
  Tenant,
  EntitlementOverride,
  ApiClient,
  AccessToken,
  PersonalAccessToken,
  CredentialGeneration,
  Project,
  ProjectFile,
  ProjectCount,
  DocumentEntity,
  DocumentVersion,
  ExternalRevision,
  IdempotencyKey,
  DocumentLock,
  EventEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  WebhookDeliveryAttemptEntity,
  AuditLogEntry,
];

const DEFAULT_POOL: PoolOptions = { mode: 'session', size: 20 };

/** Shared by the application, the CLI and the migration runner; `synchronize` is never on. */
export function dataSourceOptions(
  url: string,
  pool: PoolOptions = DEFAULT_POOL,
  /** false for the migration runner: a migration on a big table may rightly run for minutes */
  timeouts = true,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    entities: ENTITIES,
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
