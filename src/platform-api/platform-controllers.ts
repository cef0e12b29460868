import type { Type } from '@nestjs/common';
import { AuditPlatformController } from '../modules/audit/platform/audit.platform.controller.js';
import { EventsPlatformController } from '../modules/events/platform/events.platform.controller.js';
import { ContentPlatformController } from '../modules/content/platform/content.platform.controller.js';
import { CredentialsPlatformController } from '../modules/auth/platform/credentials.platform.controller.js';
import { ReviewsPlatformController } from '../modules/revisions/platform/reviews.platform.controller.js';
import { TenantsPlatformController } from '../modules/tenancy/platform/tenants.platform.controller.js';

/**
 * Every controller of the platform API. Each lives in its bounded context
 * (`modules/<ctx>/platform/`) and calls that context's services, which the platform application
 * shares with the integration API (`SHARED_SERVICES`).
 */
export const PLATFORM_CONTROLLERS: Type[] = [
  TenantsPlatformController,
  CredentialsPlatformController,
  ReviewsPlatformController,
  AuditPlatformController,
  EventsPlatformController,
  ContentPlatformController,
];
