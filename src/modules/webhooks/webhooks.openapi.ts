// The OpenAPI text of webhooks.controller.ts: one composed decorator per handler,
// `WebhooksDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse } from '@nestjs/swagger';
import {
  ApiProblemResponses,
  type ProblemResponse,
} from '../../common/http/api-problem-responses.js';
import {
  CreateWebhookRequest,
  RotateWebhookSecretRequest,
  UpdateWebhookRequest,
  UpdateWebhookStatusRequest,
} from './dto/webhook.request.js';
import {
  CreatedWebhookResponse,
  RotatedSecretResponse,
  TestEventResponse,
  WebhookListResponse,
  WebhookResponse,
} from './dto/webhook.response.js';

/** What the routes of one webhook answer for an unknown webhook, and for a revoked one. */
const WEBHOOK_NOT_FOUND: ProblemResponse = {
  status: 404,
  description: '`not_found`: unknown webhook, or one of another tenant.',
};
const WEBHOOK_REVOKED: ProblemResponse = { status: 409, codes: ['webhook_revoked'] };

/** The OpenAPI text of each route of WebhooksController, one composed decorator per handler. */
export const WebhooksDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: 'List webhooks',
        description:
          'The webhooks of the tenant, oldest first. The signing secret is never included. At most ' +
          '`limit` (default 1000) per page; `next_cursor` reads the next page.',
      }),
      ApiResponse({ status: 200, type: WebhookListResponse }),
      ApiProblemResponses({
        status: 400,
        description:
          '`validation_failed`: `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
      }),
    ),
  create: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Create a webhook',
        description:
          'Creates an active webhook. The response carries the signing secret (`whsec_…`, Standard Webhooks) ' +
          'once; it is stored encrypted and never returned again. Deliveries are signed with headers ' +
          '`webhook-id` (the event id), `webhook-timestamp` and `webhook-signature`. A tenant may have ' +
          'at most `WEBHOOK_MAX_PER_TENANT` (default 50) webhooks that are not revoked.',
      }),
      ApiBody({
        type: CreateWebhookRequest,
        examples: {
          some_events: {
            summary: 'Candidate revisions and new versions',
            value: {
              name: 'ERP sync',
              endpoint_url: 'https://erp.example.com/hooks/grc',
              events: ['external_revision.staged', 'document.version_created'],
            },
          },
          all_events: {
            summary: 'Every event type',
            value: {
              name: 'Audit trail',
              endpoint_url: 'https://siem.example.com/grc',
              events: ['*'],
            },
          },
        },
      }),
      ApiResponse({ status: 201, type: CreatedWebhookResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: invalid `name`, `endpoint_url` (not an absolute https URL, or with user-info) or `events` (empty, or an unknown event type), or an unknown field.',
        },
        {
          status: 409,
          codes: ['webhook_limit_reached'],
        },
        413,
      ),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Get a webhook',
        description: 'One webhook of the tenant. The signing secret is never included.',
      }),
      ApiResponse({ status: 200, type: WebhookResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: webhookId is not a positive integer.' },
        WEBHOOK_NOT_FOUND,
      ),
    ),
  update: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Edit a webhook',
        description:
          'Changes any of `name`, `endpoint_url` and `events`, validated as on creation; at least one. ' +
          'Deliveries not yet sent go to the new URL (one being sent at this moment finishes on the ' +
          'old one); a new URL also clears the failure record of the old one, and deliveries waiting ' +
          'out a retry delay are sent at once. The status changes only through ' +
          '`POST /webhooks/{webhookId}/status`; the secret only through its rotation.',
      }),
      ApiBody({
        type: UpdateWebhookRequest,
        examples: {
          move: {
            summary: 'Move to a new URL',
            value: { endpoint_url: 'https://erp-eu.example.com/hooks/grc' },
          },
          rename_and_subscribe: {
            summary: 'Rename, and receive every event type',
            value: { name: 'ERP sync (all events)', events: ['*'] },
          },
        },
      }),
      ApiResponse({ status: 200, type: WebhookResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: an empty body, an invalid `name`, `endpoint_url` or `events` (as on creation), an unknown field (`status`, `secret` included), or webhookId is not a positive integer.',
        },
        WEBHOOK_NOT_FOUND,
        WEBHOOK_REVOKED,
        413,
      ),
    ),
  rotateSecret: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Rotate the signing secret',
        description:
          'Replaces the signing secret with a new one, returned once (stored encrypted, never ' +
          'returned again). Until `previous_secret_expires_at` (now + `grace_period_seconds`, default ' +
          '24 h) every attempt is signed with both secrets, `webhook-signature: v1,<new> v1,<old>`, so ' +
          'a receiver verifies with either and can switch without losing a delivery; after it, with ' +
          'the new one only. A second rotation ends the grace of the secret before it at once. The ' +
          'body is optional.',
      }),
      ApiBody({
        type: RotateWebhookSecretRequest,
        required: false,
        examples: {
          default_grace: { summary: 'Old secret valid 24 h more', value: {} },
          one_hour: { summary: 'Old secret valid 1 h more', value: { grace_period_seconds: 3600 } },
          immediately: { summary: 'Retire the old secret now', value: { grace_period_seconds: 0 } },
        },
      }),
      ApiResponse({ status: 200, type: RotatedSecretResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `grace_period_seconds` is not an integer in 0..604800, an unknown field, or webhookId is not a positive integer.',
        },
        WEBHOOK_NOT_FOUND,
        WEBHOOK_REVOKED,
        413,
      ),
    ),
  sendTestEvent: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Send a test event',
        description:
          'Queues an event of type `webhook.test` (`data: { webhookId }`) for this webhook only, ' +
          'whatever its `events`. It is signed, retried and listed with the deliveries like any ' +
          'other; a paused webhook holds it until re-activation.',
      }),
      ApiResponse({ status: 202, type: TestEventResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: webhookId is not a positive integer.' },
        WEBHOOK_NOT_FOUND,
        WEBHOOK_REVOKED,
      ),
    ),
  setStatus: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Change the status of a webhook',
        description:
          '`active` ⇄ `paused`; `revoked` is final. Pausing holds deliveries until re-activation; ' +
          'revoking cancels pending ones. Asking for the current status again is a no-op. A pause or ' +
          'revocation through this operation has `status_reason` `manual`; `active` clears the reason ' +
          '(also `gone` or `failing`, set when the service paused the webhook itself).',
      }),
      ApiBody({
        type: UpdateWebhookStatusRequest,
        examples: {
          pause: { summary: 'Hold deliveries', value: { status: 'paused' } },
          activate: { summary: 'Resume deliveries', value: { status: 'active' } },
          revoke: { summary: 'Stop for good (irreversible)', value: { status: 'revoked' } },
        },
      }),
      ApiResponse({ status: 200, type: WebhookResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: `status` is not one of active, paused, revoked, or webhookId is not a positive integer.',
        },
        WEBHOOK_NOT_FOUND,
        {
          status: 409,
          codes: ['webhook_revoked'],
          description:
            '`webhook_revoked`: `active` or `paused` asked of a revoked webhook (`revoked` again is a 200 no-op).',
        },
        413,
      ),
    ),
};
