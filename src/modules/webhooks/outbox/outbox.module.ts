import { Module } from '@nestjs/common';
import { WebhookOutbox } from './webhook-outbox.service.js';

/** The outbox alone, for the contexts that publish events (documents, locks, revisions). */
@Module({
  providers: [WebhookOutbox],
  exports: [WebhookOutbox],
})
export class OutboxModule {}
