import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';

@ApiSchema({ name: 'DeliveryView' })
export class DeliveryResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 981 })
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

  @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
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

  @ApiProperty({ minimum: 100, maximum: 599, example: 200, nullable: true, type: 'integer' })
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
    type: 'integer',
    minimum: 1,
    example: 1,
    description: 'The attempt number, from 1, in the order they started.',
  })
  attempt!: number;

  @ApiProperty({ example: '2026-11-22T10:00:01.000Z' })
  started_at!: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 83 })
  duration_ms!: number;

  @ApiProperty({
    minimum: 100,
    maximum: 599,
    example: 500,
    nullable: true,
    type: 'integer',
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
  @ApiProperty({ type: 'integer', format: 'int64', example: 981 })
  deliveryId!: number;

  @ApiProperty({ example: 'queued', enum: ['queued'] })
  status!: 'queued';
}
