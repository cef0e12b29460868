import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Matches,
  MaxLength,
  Max,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { MinFields } from '../../../common/http/min-fields.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { WEBHOOK_STATUSES, type WebhookStatus } from '../entities/webhook.entity.js';

export const SUBSCRIBABLE_EVENTS = [...EVENT_TYPES, '*'] as const;

/**
 * `events` of a creation or a PATCH: a non-empty array of known event types or `*`. Listed in
 * the order stacked decorators are applied (bottom up), so the checks register as they did.
 */
const SubscribedEvents = () =>
  applyDecorators(
    IsIn(SUBSCRIBABLE_EVENTS, {
      each: true,
      message: `each value in events must be one of: ${SUBSCRIBABLE_EVENTS.join(', ')}`,
    }),
    ArrayMaxSize(SUBSCRIBABLE_EVENTS.length),
    ArrayNotEmpty(),
    IsArray(),
  );

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
    format: 'uri',
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
  @SubscribedEvents()
  events!: string[];
}

/** Present means validated: null is refused like any other wrong type (IsOptional would let it through). */
const IfPresent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/**
 * PATCH /webhooks/{webhookId}: any of the fields of a creation, validated the same way; at least
 * one (checked by the service). Status changes only through the status route.
 */
@ApiSchema({ name: 'UpdateWebhookDto' })
@MinFields(1)
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
    format: 'uri',
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
  @SubscribedEvents()
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
