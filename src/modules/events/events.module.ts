import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { EventFeedRepository } from './feed/event-feed.repository.js';
import { EventFeedService } from './feed/event-feed.service.js';
import { EventStreamHub } from './feed/event-stream-hub.js';

/** Every tenant's events as a resumable feed, listed and streamed (the platform API's `/events`). */
@Module({
  imports: [DatabaseModule, TenancyModule],
  providers: [EventFeedRepository, EventFeedService, EventStreamHub],
  exports: [EventFeedService, EventStreamHub],
})
export class EventsModule {}
