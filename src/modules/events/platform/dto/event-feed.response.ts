import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { CATALOG_EVENT_TYPES, EVENT_PAYLOAD_CLASSES } from '../../event-catalog.js';

/** One event of the feed: the webhook payload of its type, with `tenantId` beside `tenant_id`. */
export const PLATFORM_EVENT_SCHEMA = {
  allOf: [
    {
      oneOf: CATALOG_EVENT_TYPES.map((type) => ({
        $ref: getSchemaPath(EVENT_PAYLOAD_CLASSES[type]),
      })),
      discriminator: {
        propertyName: 'type',
        mapping: Object.fromEntries(
          CATALOG_EVENT_TYPES.map((type) => [type, getSchemaPath(EVENT_PAYLOAD_CLASSES[type])]),
        ),
      },
    },
    {
      type: 'object',
      required: ['tenantId'],
      properties: {
        tenantId: { type: 'integer', example: 1, description: 'The tenant (as `tenant_id`).' },
      },
    },
  ],
};

@ApiSchema({ description: 'A page of the event feed.' })
export class EventFeedPage {
  @ApiProperty({
    type: 'array',
    items: PLATFORM_EVENT_SCHEMA,
    description:
      'Events in feed order, oldest first: each exactly the body a webhook receives for it ' +
      '(its `id` is the `webhook-id`), plus `tenantId`.',
  })
  data!: Record<string, unknown>[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'WzEsMCwicGxhdGZvcm0uZXZlbnRzIixbXSxbNzQ2LDEyXV0',
    description:
      'Pass as `after` to read on. Present whenever `data` is not empty; on an empty page it is ' +
      'where the next read starts (it may have moved past events the filters left out); null ' +
      'only when no event exists yet and no `after` was given. An empty page is not the end: ' +
      'poll again later with this cursor.',
  })
  next_cursor!: string | null;
}
