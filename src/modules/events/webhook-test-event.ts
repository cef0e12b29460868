import { ApiProperty } from '@nestjs/swagger';

/**
 * `webhook.test`: sent on request (POST /webhooks/{webhookId}/test) to that one webhook, whatever
 * its `events`. Not one of EVENT_TYPES: no webhook subscribes to it, `*` included.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** `data` of a `webhook.test` event. */
export class WebhookTestEventData {
  @ApiProperty({ example: 12, description: 'The webhook the test was asked for.' })
  webhookId!: number;

  static of(webhookId: number): WebhookTestEventData {
    return { webhookId };
  }
}
