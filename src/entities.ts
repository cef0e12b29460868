/**
 * Every entity, one per table the migrations create: what `npm run check:schema` compares with
 * the migrated schema, and the application's DataSource (DatabaseModule.forRoot) describes. No
 * module reads or writes through them: the repositories run typed `sql` statements.
 */
import { AuditLogEntry } from './modules/audit/entities/audit-log-entry.entity.js';
import { AccessToken } from './modules/auth/entities/access-token.entity.js';
import { ApiClient } from './modules/auth/entities/api-client.entity.js';
import { CredentialGeneration } from './modules/auth/entities/credential-generation.entity.js';
import { PersonalAccessToken } from './modules/auth/entities/personal-access-token.entity.js';
import { DocumentVersion } from './modules/documents/entities/document-version.entity.js';
import { DocumentEntity } from './modules/documents/entities/document.entity.js';
import { EventEntity } from './modules/events/entities/event.entity.js';
import { DocumentLock } from './modules/locks/entities/document-lock.entity.js';
import { PlatformKeyEntity } from './modules/platform-keys/entities/platform-key.entity.js';
import { ProjectCount } from './modules/projects/entities/project-count.entity.js';
import { ProjectFile } from './modules/projects/entities/project-file.entity.js';
import { Project } from './modules/projects/entities/project.entity.js';
import { ExternalRevision } from './modules/revisions/entities/external-revision.entity.js';
import { IdempotencyKey } from './modules/revisions/entities/idempotency-key.entity.js';
import { EntitlementOverride } from './modules/tenancy/entities/entitlement-override.entity.js';
import { Tenant } from './modules/tenancy/entities/tenant.entity.js';
import { WebhookDeliveryAttemptEntity } from './modules/webhooks/entities/webhook-delivery-attempt.entity.js';
import { WebhookDeliveryEntity } from './modules/webhooks/entities/webhook-delivery.entity.js';
import { WebhookEntity } from './modules/webhooks/entities/webhook.entity.js';

export const ENTITIES = [
  PlatformKeyEntity,
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
