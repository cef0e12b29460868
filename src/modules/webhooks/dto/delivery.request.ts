import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  Max,
  Min,
} from 'class-validator';
import { OptionalIdQuery, toInteger } from '../../../common/http/params.js';
import { CursorQuery } from '../../../common/pagination/page-query.js';
import { CATALOG_EVENT_TYPES, type CatalogEventType } from '../../events/event-catalog.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../entities/webhook-delivery.entity.js';

/** A query value given once is a string, repeated an array: both as an array. */
const toArray = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? [value] : value;

/**
 * The documented `limit` (1..100, default 50), the shared `cursor`, and the filters of issue 20: all
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

  @OptionalIdQuery(
    "Only this webhook's deliveries. A webhookId that is not one of the tenant's matches nothing.",
  )
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
