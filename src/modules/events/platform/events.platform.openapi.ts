// The OpenAPI text of events.platform.controller.ts: one composed decorator per handler,
// `EventsPlatformDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { MAX_CURSOR_LENGTH } from '../../../common/pagination/cursor.js';
import { EventFeedPage } from './dto/event-feed.response.js';

const STREAM_EXAMPLE =
  'id: WzEsMCwicGxhdGZvcm0uZXZlbnRzIixbXSxbNzQ2LDEyXV0\n' +
  'event: document.checked_in\n' +
  'data: {"id":"evt_01JD2Z8KQ3M4V5W6X7Y8Z9ABCD","data":{"documentId":7,"released_at":"2026-11-22T10:10:00.000Z"},"type":"document.checked_in","tenantId":1,"tenant_id":1,"timestamp":"2026-11-22T10:10:00.000Z"}\n\n' +
  ': keep-alive\n\n';

/** The OpenAPI text of each route of EventsPlatformController, one composed decorator per handler. */
export const EventsPlatformDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: "Every tenant's events, as a list or a stream",
        description:
          "Every tenant's events (or one tenant's: `tenantId`), each as the webhook payload its " +
          'receivers get plus `tenantId`, in feed order. That order is safe to resume from: an ' +
          'event is given only once every transaction that could come before it has ended, so no ' +
          'event ever appears behind a cursor already handed out (an event may wait a moment while ' +
          'an older transaction still runs).\n\n' +
          'As a list (`Accept: application/json`): `{ data, next_cursor }`, `limit` events a page; ' +
          'poll with `after=<next_cursor>`.\n\n' +
          'As Server-Sent Events (`Accept: text/event-stream`): each event as `id: <cursor>`, ' +
          '`event: <type>`, `data: <payload JSON>`, pushed as it commits; a `: keep-alive` comment ' +
          'every 15 s. The stream starts after `Last-Event-ID` (what a reconnecting EventSource ' +
          'sends), else after `after`, else at the current end; its first frame is an `id:` line ' +
          'alone, so a reconnect resumes without a gap even before the first event.',
      }),
      ApiHeader({
        name: 'Last-Event-ID',
        required: false,
        schema: { type: 'string', maxLength: MAX_CURSOR_LENGTH },
        description:
          'Stream only: resume after this event (the `id:` of a streamed event); wins over `after`.',
      }),
      ApiResponse({
        status: 200,
        description: 'The page (JSON) or the stream (`text/event-stream`), as `Accept` asks.',
        headers: {
          'Cache-Control': {
            description: 'The stream only: `no-store` (no cache or proxy keeps or replays it).',
            schema: { type: 'string', enum: ['no-store'] },
          },
          'X-Accel-Buffering': {
            description:
              'The stream only: `no`, so that nginx and the like pass each event on at once.',
            schema: { type: 'string', enum: ['no'] },
          },
        },
        content: {
          'application/json': { schema: { $ref: getSchemaPath(EventFeedPage) } },
          'text/event-stream': {
            schema: {
              type: 'string',
              description:
                'Server-Sent Events: `id` (the cursor), `event` (the type) and `data` (the payload, ' +
                'as in the list) per event; `: keep-alive` comments.',
            },
            example: STREAM_EXAMPLE,
          },
        },
      }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `after` or `Last-Event-ID` not a cursor of this feed, `limit` not an integer in 1..1000, a `types` value not an event type, `tenantId` not a positive integer.',
        },
        { status: 404, description: '`not_found`: there is no tenant `tenantId`.' },
      ),
    ),
};
