import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Max,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { MAX_ID, toInteger } from '../../../common/http/params.js';
import { CursorQuery } from '../../../common/pagination/page-query.js';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';
import { CATALOG_EVENT_TYPES, type CatalogEventType } from '../../events/event-catalog.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../entities/webhook-delivery.entity.js';
import {
  WEBHOOK_STATUS_REASONS,
  WEBHOOK_STATUSES,
  type WebhookStatus,
  type WebhookStatusReason,
} from '../entities/webhook.entity.js';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

export const SUBSCRIBABLE_EVENTS = [...EVENT_TYPES, '*'] as const;

@ApiSchema({ name: 'CreateWebhookDto' })
export class CreateWebhookRequest {
  @ApiProperty({ example: 'ERP sync', minLength: 1, maxLength: 100 })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({
    example: 'https://erp.example.com/hooks/grc',
    description:
      'Absolute `https` URL without user-info (`http` only when the server sets `WEBHOOK_ALLOW_HTTP=true`). ' +
      'At delivery time its resolved address must be public (no loopback, private, link-local, CGNAT, multicast).',
    maxLength: 2048,
  })
  @IsString()
  @MaxLength(2048)
  endpoint_url!: string;

  @ApiProperty({
    example: ['external_revision.staged', 'document.version_created'],
    description: 'Event types to receive; `*` subscribes to all of them.',
    enum: SUBSCRIBABLE_EVENTS,
    isArray: true,
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @IsIn(SUBSCRIBABLE_EVENTS, {
    each: true,
    message: `each value in events must be one of: ${SUBSCRIBABLE_EVENTS.join(', ')}`,
  })
  events!: string[];
}

/** Present means validated: null is refused like any other wrong type (IsOptional would let it through). */
const IfPresent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/**
 * PATCH /webhooks/{webhookId}: any of the fields of a creation, validated the same way; at least
 * one (checked by the service). Status changes only through the status route.
 */
@ApiSchema({ name: 'UpdateWebhookDto' })
export class UpdateWebhookRequest {
  @ApiPropertyOptional({ example: 'ERP sync (EU)', minLength: 1, maxLength: 100 })
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({
    example: 'https://erp-eu.example.com/hooks/grc',
    description:
      'As on creation: absolute `https` URL without user-info, a public address at delivery time. ' +
      'Deliveries not yet sent go to the new URL; one being sent at this moment finishes on the old one.',
    maxLength: 2048,
  })
  @IfPresent()
  @IsString()
  @MaxLength(2048)
  endpoint_url?: string;

  @ApiPropertyOptional({
    example: ['*'],
    description: 'Replaces the subscribed event types; `*` subscribes to all of them.',
    enum: SUBSCRIBABLE_EVENTS,
    isArray: true,
  })
  @IfPresent()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @IsIn(SUBSCRIBABLE_EVENTS, {
    each: true,
    message: `each value in events must be one of: ${SUBSCRIBABLE_EVENTS.join(', ')}`,
  })
  events?: string[];
}

export const MAX_GRACE_PERIOD_SECONDS = 604_800;

@ApiSchema({ name: 'RotateWebhookSecretDto' })
export class RotateWebhookSecretRequest {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_GRACE_PERIOD_SECONDS,
    default: 86_400,
    example: 86_400,
    description:
      'How long the replaced secret still signs deliveries (next to the new one), in seconds; ' +
      '0 retires it at once. At most 7 days.',
  })
  @IfPresent()
  @IsInt()
  @Min(0)
  @Max(MAX_GRACE_PERIOD_SECONDS)
  grace_period_seconds: number = 86_400;
}

@ApiSchema({ name: 'UpdateWebhookStatusDto' })
export class UpdateWebhookStatusRequest {
  @ApiProperty({ enum: WEBHOOK_STATUSES, example: 'paused' })
  @IsIn(WEBHOOK_STATUSES)
  status!: WebhookStatus;
}

/** A query value given once is a string, repeated an array: both as an array. */
const toArray = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? [value] : value;

/**
 * SPEC.md's `limit` (1..100, default 50), the shared `cursor`, and the filters of issue 20: all
 * optional, combined with AND; without any, the tenant's whole history.
 */
export class ListDeliveriesQuery extends CursorQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, example: 50 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 50;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    description:
      "Only this webhook's deliveries. A webhookId that is not one of the tenant's matches nothing.",
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  webhookId?: number;

  @ApiPropertyOptional({
    enum: DELIVERY_STATUSES,
    isArray: true,
    maxItems: DELIVERY_STATUSES.length,
    description:
      'Only deliveries in one of these states, as listed (a held delivery is `queued` or ' +
      '`retry`). Repeat the parameter for several: `status=failed&status=retry`.',
  })
  @IsOptional()
  @Transform(toArray)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(DELIVERY_STATUSES.length)
  @IsIn(DELIVERY_STATUSES, {
    each: true,
    message: `each value in status must be one of: ${DELIVERY_STATUSES.join(', ')}`,
  })
  status?: DeliveryStatus[];

  @ApiPropertyOptional({
    enum: CATALOG_EVENT_TYPES,
    description: 'Only deliveries of events of this type.',
  })
  @IsOptional()
  @IsIn(CATALOG_EVENT_TYPES, {
    message: `event_type must be one of: ${CATALOG_EVENT_TYPES.join(', ')}`,
  })
  event_type?: CatalogEventType;
}

@ApiSchema({ name: 'WebhookView' })
export class WebhookResponse {
  @ApiProperty({ example: 12 })
  webhookId!: number;

  @ApiProperty({ example: 'ERP sync' })
  name!: string;

  @ApiProperty({ example: 'https://erp.example.com/hooks/grc' })
  endpoint_url!: string;

  @ApiProperty({ example: ['external_revision.staged'], isArray: true, type: String })
  events!: string[];

  @ApiProperty({ enum: WEBHOOK_STATUSES, example: 'active' })
  status!: WebhookStatus;

  @ApiProperty({
    enum: WEBHOOK_STATUS_REASONS,
    nullable: true,
    type: String,
    example: null,
    description:
      'Why the webhook is not active; null when it is. `manual`: paused or revoked through the API. ' +
      '`gone`: its receiver answered 410 Gone. `failing`: its deliveries failed without any success ' +
      'for `WEBHOOK_DISABLE_AFTER` (default 5 days). Deliveries are held as for any pause; setting ' +
      '`active` clears the reason.',
  })
  status_reason!: WebhookStatusReason | null;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  updated_at!: string;
}

@ApiSchema({ name: 'CreatedWebhookView' })
export class CreatedWebhookResponse extends WebhookResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0ZjXjQ4bfnk=',
    description:
      'Signing secret (Standard Webhooks). Returned only in this response; store it in a secret store.',
  })
  secret!: string;
}

@ApiSchema({ name: 'WebhookListView' })
export class WebhookListResponse extends CursorPageResponse {
  @ApiProperty({ type: [WebhookResponse] })
  data!: WebhookResponse[];
}

@ApiSchema({ name: 'DeliveryView' })
export class DeliveryResponse {
  @ApiProperty({ example: 981 })
  deliveryId!: number;

  @ApiProperty({ example: 12 })
  webhookId!: number;

  @ApiProperty({
    example: 'evt_01JD2Z8KQ3M4V5W6X7Y8Z9ABCD',
    description: 'Also the `webhook-id` header.',
  })
  event_id!: string;

  @ApiProperty({ example: 'external_revision.staged' })
  event_type!: string;

  @ApiProperty({
    enum: ['queued', 'sending', 'succeeded', 'retry', 'failed', 'cancelled'],
    example: 'succeeded',
    description:
      'A delivery held by a paused webhook is `queued` (or `retry` once an attempt has failed).',
  })
  status!: string;

  @ApiProperty({ example: 1 })
  attempts!: number;

  @ApiProperty({ example: '2026-11-22T10:00:01.000Z', nullable: true, type: String })
  last_attempt_at!: string | null;

  @ApiProperty({
    example: '2026-11-22T10:00:01.000Z',
    nullable: true,
    type: String,
    description: 'When the next attempt is due; null once the delivery is final.',
  })
  next_attempt_at!: string | null;

  @ApiProperty({ example: 200, nullable: true, type: Number })
  last_response_status!: number | null;

  @ApiProperty({ example: null, nullable: true, type: String })
  last_error!: string | null;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
}

@ApiSchema({ name: 'DeliveryListView' })
export class DeliveryListResponse extends CursorPageResponse {
  @ApiProperty({ type: [DeliveryResponse] })
  data!: DeliveryResponse[];
}

@ApiSchema({ name: 'DeliveryAttemptView' })
export class DeliveryAttemptResponse {
  @ApiProperty({
    example: 1,
    description: 'The attempt number, from 1, in the order they started.',
  })
  attempt!: number;

  @ApiProperty({ example: '2026-11-22T10:00:01.000Z' })
  started_at!: string;

  @ApiProperty({ example: 83 })
  duration_ms!: number;

  @ApiProperty({
    example: 500,
    nullable: true,
    type: Number,
    description: 'The HTTP status the receiver answered; null when no response arrived.',
  })
  response_status!: number | null;

  @ApiProperty({
    example: 'HTTP 500',
    nullable: true,
    type: String,
    description: 'Why the attempt failed; null when it succeeded.',
  })
  error!: string | null;

  @ApiProperty({
    example: '{"error":"database unavailable"}',
    nullable: true,
    type: String,
    description:
      "The first 1 KiB of the receiver's response body, as text (UTF-8: a character cut by the " +
      'limit is left out, invalid bytes and U+0000 become U+FFFD); null when no response arrived, ' +
      'or for attempts recorded before this was kept. Never what was sent (headers, signature).',
  })
  response_body_excerpt!: string | null;
}

@ApiSchema({ name: 'DeliveryAttemptListView' })
export class DeliveryAttemptListResponse {
  @ApiProperty({ type: [DeliveryAttemptResponse] })
  data!: DeliveryAttemptResponse[];
}

@ApiSchema({ name: 'ReplayView' })
export class ReplayResponse {
  @ApiProperty({ example: 981 })
  deliveryId!: number;

  @ApiProperty({ example: 'queued', enum: ['queued'] })
  status!: 'queued';
}

@ApiSchema({ name: 'RotatedSecretView' })
export class RotatedSecretResponse {
  @ApiProperty({ example: 12 })
  webhookId!: number;

  @ApiProperty({
    example: 'whsec_2Hq0v3Jr6C0kXyNn9mG7qg1bS8fYt4LwZ5pR3uE6dKc=',
    description:
      'The new signing secret. Returned only in this response; store it in a secret store.',
  })
  secret!: string;

  @ApiProperty({
    example: '2026-11-24T10:00:00.000Z',
    description:
      'Until then every delivery is signed with both secrets (`webhook-signature: v1,<new> v1,<old>`); ' +
      'after it, with the new one only. Now, when `grace_period_seconds` was 0.',
  })
  previous_secret_expires_at!: string;
}

@ApiSchema({ name: 'TestEventView' })
export class TestEventResponse {
  @ApiProperty({
    example: 982,
    description: 'Listed with the deliveries (`GET /webhook-deliveries`).',
  })
  deliveryId!: number;

  @ApiProperty({
    example: 'evt_01JD2Z8KQ3M4V5W6X7Y8Z9ABCE',
    description: 'The event id; also the `webhook-id` header of the delivery.',
  })
  event_id!: string;
}
