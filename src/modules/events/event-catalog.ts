import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { REVISION_STATUSES, type RevisionStatus } from './revision-status.js';
import { EVENT_TYPES } from './event-types.js';

/**
 * The typed event catalog (the webhook events of docs/integrators/verifying-webhooks.md): the `data` of every event type as a
 * class, and the payload of every type as a class. `WebhookOutbox.append` takes exactly the
 * `data` class of the type it publishes (`EventData<T>`), and the OpenAPI document describes the
 * payloads from these same classes (src/openapi.ts), so the document cannot drift from what is
 * sent. The e2e suites check every payload their receivers got against the document.
 */

/** `data` of `external_revision.*`: every key present, null where there is no value. */
@ApiSchema({ description: 'Data of the `external_revision.*` events.' })
export class ExternalRevisionEventData {
  @ApiProperty({ type: 'integer', example: 44 })
  revisionId!: number;

  @ApiProperty({ type: 'integer', example: 7 })
  documentId!: number;

  @ApiProperty({ type: 'integer', example: 3 })
  projectId!: number;

  @ApiProperty({ enum: REVISION_STATUSES, example: 'staged' })
  status!: RevisionStatus;

  @ApiProperty({
    type: 'integer',
    example: 12,
    description: 'The version the candidate is based on.',
  })
  base_version_id!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'The version created by accepting the candidate; null unless accepted.',
  })
  resulting_version_id!: number | null;
}

@ApiSchema({ description: 'Data of `document.version_created`.' })
export class DocumentVersionCreatedData {
  @ApiProperty({ type: 'integer', example: 7 })
  documentId!: number;

  @ApiProperty({ type: 'integer', example: 3 })
  projectId!: number;

  @ApiProperty({ type: 'integer', example: 13 })
  versionId!: number;

  @ApiProperty({ type: 'integer', example: 4, description: 'The version number (1, 2, …).' })
  number!: number;

  @ApiProperty({
    example: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  content_hash!: string;
}

@ApiSchema({ description: 'Data of `document.checked_out`.' })
export class DocumentCheckedOutData {
  @ApiProperty({ type: 'integer', example: 7 })
  documentId!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:30:00.000Z' })
  expires_at!: string;
}

@ApiSchema({ description: 'Data of `document.checked_in`.' })
export class DocumentCheckedInData {
  @ApiProperty({ type: 'integer', example: 7 })
  documentId!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:10:00.000Z' })
  released_at!: string;
}

@ApiSchema({ description: 'Data of `document.lock_expired`.' })
export class DocumentLockExpiredData {
  @ApiProperty({ type: 'integer', example: 7 })
  documentId!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:30:00.000Z' })
  expired_at!: string;
}

@ApiSchema({ description: 'Data of `webhook.test`.' })
export class WebhookTestData {
  @ApiProperty({ type: 'integer', example: 12, description: 'The webhook the test was sent to.' })
  webhookId!: number;
}

/** Sent by `POST /webhooks/{webhookId}/test` to that webhook only, whatever its `events`. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Every type a receiver may get: the subscribable ones and `webhook.test`. */
export const CATALOG_EVENT_TYPES = [...EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type CatalogEventType = (typeof CATALOG_EVENT_TYPES)[number];

/** Fields of every payload; each type's class adds `type` and `data`. */
abstract class EventPayloadFields {
  @ApiProperty({
    example: 'evt_01JD2Z8KQ3M4V5W6X7Y8Z9ABCD',
    pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$',
    description:
      'The event id, also sent as `webhook-id`: the same on every retry and replay, and for every ' +
      'webhook that receives the event. Deduplicate on it.',
  })
  id!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T10:00:00.000Z',
    description: 'When the event happened (RFC 3339, UTC).',
  })
  timestamp!: string;

  @ApiProperty({ type: 'integer', example: 1 })
  tenant_id!: number;
}

const typeProperty = (type: CatalogEventType) =>
  ApiProperty({ enum: [type], example: type, description: 'Discriminates the payload.' });

@ApiSchema({ description: 'A candidate external revision was staged.' })
export class ExternalRevisionStagedEvent extends EventPayloadFields {
  @typeProperty('external_revision.staged')
  type!: 'external_revision.staged';

  @ApiProperty({ type: ExternalRevisionEventData })
  data!: ExternalRevisionEventData;
}

@ApiSchema({ description: "A candidate was accepted in the platform's UI (a new version exists)." })
export class ExternalRevisionAcceptedEvent extends EventPayloadFields {
  @typeProperty('external_revision.accepted')
  type!: 'external_revision.accepted';

  @ApiProperty({ type: ExternalRevisionEventData })
  data!: ExternalRevisionEventData;
}

@ApiSchema({ description: "A candidate was rejected in the platform's UI." })
export class ExternalRevisionRejectedEvent extends EventPayloadFields {
  @typeProperty('external_revision.rejected')
  type!: 'external_revision.rejected';

  @ApiProperty({ type: ExternalRevisionEventData })
  data!: ExternalRevisionEventData;
}

@ApiSchema({ description: 'A staged candidate lost its base: a newer version was created.' })
export class ExternalRevisionSupersededEvent extends EventPayloadFields {
  @typeProperty('external_revision.superseded')
  type!: 'external_revision.superseded';

  @ApiProperty({ type: ExternalRevisionEventData })
  data!: ExternalRevisionEventData;
}

@ApiSchema({ description: 'A new version of a document was created.' })
export class DocumentVersionCreatedEvent extends EventPayloadFields {
  @typeProperty('document.version_created')
  type!: 'document.version_created';

  @ApiProperty({ type: DocumentVersionCreatedData })
  data!: DocumentVersionCreatedData;
}

@ApiSchema({ description: 'A document was checked out (locked).' })
export class DocumentCheckedOutEvent extends EventPayloadFields {
  @typeProperty('document.checked_out')
  type!: 'document.checked_out';

  @ApiProperty({ type: DocumentCheckedOutData })
  data!: DocumentCheckedOutData;
}

@ApiSchema({ description: 'A document was checked in (its lock released).' })
export class DocumentCheckedInEvent extends EventPayloadFields {
  @typeProperty('document.checked_in')
  type!: 'document.checked_in';

  @ApiProperty({ type: DocumentCheckedInData })
  data!: DocumentCheckedInData;
}

@ApiSchema({ description: "A document's lock expired without a check-in." })
export class DocumentLockExpiredEvent extends EventPayloadFields {
  @typeProperty('document.lock_expired')
  type!: 'document.lock_expired';

  @ApiProperty({ type: DocumentLockExpiredData })
  data!: DocumentLockExpiredData;
}

@ApiSchema({
  description:
    'A test event, sent on request (`POST /webhooks/{webhookId}/test`) to that webhook only.',
})
export class WebhookTestEvent extends EventPayloadFields {
  @typeProperty(WEBHOOK_TEST_EVENT)
  type!: typeof WEBHOOK_TEST_EVENT;

  @ApiProperty({ type: WebhookTestData })
  data!: WebhookTestData;
}

/** The payload class of every type, in `CATALOG_EVENT_TYPES` order. */
export const EVENT_PAYLOAD_CLASSES = {
  'external_revision.staged': ExternalRevisionStagedEvent,
  'external_revision.accepted': ExternalRevisionAcceptedEvent,
  'external_revision.rejected': ExternalRevisionRejectedEvent,
  'external_revision.superseded': ExternalRevisionSupersededEvent,
  'document.version_created': DocumentVersionCreatedEvent,
  'document.checked_out': DocumentCheckedOutEvent,
  'document.checked_in': DocumentCheckedInEvent,
  'document.lock_expired': DocumentLockExpiredEvent,
  [WEBHOOK_TEST_EVENT]: WebhookTestEvent,
} as const satisfies Record<CatalogEventType, abstract new () => EventPayloadFields>;

/** The payload of an event of type `T`. */
export type EventPayload<T extends CatalogEventType> = InstanceType<
  (typeof EVENT_PAYLOAD_CLASSES)[T]
>;

/** The `data` of an event of type `T`: what `WebhookOutbox.append` takes for it. */
export type EventData<T extends CatalogEventType> = EventPayload<T>['data'];
