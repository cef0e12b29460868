import type { Abstract, Type } from '@nestjs/common';
import { TenantDirectory } from '../common/access/tenant-directory.js';
import { AuditService } from '../modules/audit/audit.service.js';
import { CredentialAdminService } from '../modules/auth/credential-admin.service.js';
import { CredentialCache } from '../modules/auth/credential-cache.js';
import { TenancyService } from '../modules/tenancy/tenancy.service.js';
import { EventFeedService } from '../modules/events/feed/event-feed.service.js';
import { EventStreamHub } from '../modules/events/feed/event-stream-hub.js';
import { ContentService } from '../modules/content/content.service.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import { PlatformKeysService } from '../modules/platform-keys/platform-keys.service.js';
import { ReviewQueueService } from '../modules/revisions/review-queue.service.js';

/**
 * The integration application's providers the platform application uses: the instances
 * themselves (one pool, one outbox, one set of caches), never copies. Add the services your
 * platform controllers inject.
 */
export const SHARED_SERVICES: Array<Type | Abstract<unknown>> = [
  PlatformKeysService,
  // verified platform keys live beside the tenants' credentials, emptied by the same listener
  CredentialCache,
  AuditService,
  MetricsService,
  ReviewQueueService,
  TenancyService,
  CredentialAdminService,
  EventFeedService,
  EventStreamHub,
  ContentService,
  TenantDirectory,
];
