import { InitialSchema1764000000000 } from './1764000000000-initial-schema.js';
import { AuditLog1764000100000 } from './1764000100000-audit-log.js';
import { IdempotentReplayVerbatim1764000200000 } from './1764000200000-idempotent-replay-verbatim.js';
import { CredentialChangeNotify1764000300000 } from './1764000300000-credential-change-notify.js';
import { WebhookEndpointHealth1764000400000 } from './1764000400000-webhook-endpoint-health.js';
import { Retention1764002300000 } from './1764002300000-retention.js';
import { ProjectCounts1764002400000 } from './1764002400000-project-counts.js';
import { AuditPrune1764002500000 } from './1764002500000-audit-prune.js';
import { WebhookSendChains1764002600000 } from './1764002600000-webhook-send-chains.js';
import { WebhookSecretRotation1764002700000 } from './1764002700000-webhook-secret-rotation.js';
import { DeliveryHistory1764002800000 } from './1764002800000-delivery-history.js';
import { DocumentSummaryJson1764002900000 } from './1764002900000-document-summary-json.js';
import { VersionIndexJson1764003000000 } from './1764003000000-version-index-json.js';
import { ProjectSummaryJson1764003100000 } from './1764003100000-project-summary-json.js';
import { PlatformApi1764003200000 } from './1764003200000-platform-api.js';
import { PlatformExternalIds1764003300000 } from './1764003300000-platform-external-ids.js';
import { ReviewQueue1764003400000 } from './1764003400000-review-queue.js';
import { EventCommitOrder1764003500000 } from './1764003500000-event-commit-order.js';
import { EventTraceContext1764004030000 } from './1764004030000-event-trace-context.js';
import { PlatformKeyChangeNotify1764005000000 } from './1764005000000-platform-key-change-notify.js';
import { StagedRevisionsByDocument1764005010000 } from './1764005010000-staged-revisions-by-document.js';
import { DeliveryChurn1764005030000 } from './1764005030000-delivery-churn.js';
import { DeliveryPendingIndex1764005031000 } from './1764005031000-delivery-pending-index.js';
import { DeliveryOldIndexes1764005032000 } from './1764005032000-delivery-old-indexes.js';
import { JsonTriggersGenerated1764005040000 } from './1764005040000-json-triggers-generated.js';
import { EventsAnnouncedAfterCommit1764005050000 } from './1764005050000-events-announced-after-commit.js';

/** Every migration, in order. Listed explicitly so the build, the CLI and the tests agree. */
export const MIGRATIONS = [
  InitialSchema1764000000000,
  AuditLog1764000100000,
  IdempotentReplayVerbatim1764000200000,
  CredentialChangeNotify1764000300000,
  WebhookEndpointHealth1764000400000,
  Retention1764002300000,
  ProjectCounts1764002400000,
  AuditPrune1764002500000,
  WebhookSendChains1764002600000,
  WebhookSecretRotation1764002700000,
  DeliveryHistory1764002800000,
  DocumentSummaryJson1764002900000,
  VersionIndexJson1764003000000,
  ProjectSummaryJson1764003100000,
  PlatformApi1764003200000,
  PlatformExternalIds1764003300000,
  ReviewQueue1764003400000,
  EventCommitOrder1764003500000,
  EventTraceContext1764004030000,
  PlatformKeyChangeNotify1764005000000,
  StagedRevisionsByDocument1764005010000,
  DeliveryChurn1764005030000,
  DeliveryPendingIndex1764005031000,
  DeliveryOldIndexes1764005032000,
  JsonTriggersGenerated1764005040000,
  EventsAnnouncedAfterCommit1764005050000,
];
