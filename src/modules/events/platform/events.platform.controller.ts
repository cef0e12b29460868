import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import type { HttpRequest, StreamedResponse } from '../../../common/http/platform/http-platform.js';
import { PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { EVENT_PAYLOAD_CLASSES } from '../event-catalog.js';
import { EventFeedService } from '../feed/event-feed.service.js';
import { EventStreamHub } from '../feed/event-stream-hub.js';
import { EventFeedQuery } from './dto/event-feed.request.js';
import { EventFeedPage } from './dto/event-feed.response.js';
import { EventsPlatformDocs } from './events.platform.openapi.js';

/** Whether the caller asked for the stream (`Accept` names `text/event-stream`). */
const wantsStream = (accept: string | undefined): boolean =>
  accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);

@ApiTags('events')
@ApiExtraModels(EventFeedPage, ...Object.values(EVENT_PAYLOAD_CLASSES))
@Controller('events')
export class EventsPlatformController {
  constructor(
    private readonly feed: EventFeedService,
    private readonly stream: EventStreamHub,
  ) {}

  @Get()
  @PlatformAuthorized('platform:events')
  @EventsPlatformDocs.list()
  list(
    @Query() query: EventFeedQuery,
    // the request, not @Headers(): those would be documented as required parameters
    @Req() req: HttpRequest,
  ): Promise<EventFeedPage | StreamedResponse> {
    const filter = { tenantId: query.tenantId, types: query.types };
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    };
    return wantsStream(header('accept'))
      ? this.stream.stream(query.after, header('last-event-id'), filter)
      : this.feed.page(query.after, filter, query.limit);
  }
}
