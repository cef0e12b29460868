import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';
import {
  WEBHOOK_STATUS_REASONS,
  WEBHOOK_STATUSES,
  type WebhookStatus,
  type WebhookStatusReason,
} from '../entities/webhook.entity.js';

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
    type: 'integer',
    format: 'int64',
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
