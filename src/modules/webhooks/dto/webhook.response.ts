import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';
import {
  WEBHOOK_STATUS_REASONS,
  WEBHOOK_STATUSES,
  type WebhookStatus,
  type WebhookStatusReason,
} from '../entities/webhook.entity.js';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

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
