import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../../common/database/database.module.js';
import { WebhookOutbox } from './webhook-outbox.service.js';

/** The outbox alone, for the contexts that publish events (documents, locks, revisions). */
@Module({
  imports: [DatabaseModule],
  providers: [WebhookOutbox],
  exports: [WebhookOutbox],
})
export class OutboxModule {}
