// The OpenAPI text of reviews.platform.controller.ts: one composed decorator per handler,
// `ReviewsPlatformDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { MAX_ID } from '../../../common/http/params.js';
import { ReviewDecisionRequest } from './dto/review-decision.request.js';
import {
  ReviewDecisionResponse,
  ReviewQueueResponse,
  ReviewResponse,
} from './dto/review.response.js';

const REVISION_ID = ApiParam({
  name: 'revisionId',
  description: 'The candidate revision (ids are unique across tenants).',
  schema: { type: 'integer', minimum: 1, maximum: MAX_ID },
  example: 12,
});

const DECISION_BODY = ApiBody({
  type: ReviewDecisionRequest,
  required: false,
  examples: {
    with_note: { summary: 'With a note', value: { note: 'approved in review' } },
    bare: { summary: 'Without a note', value: {} },
  },
});

const NOT_STAGED = {
  status: 409 as const,
  codes: ['revision_not_staged' as const],
  description:
    '`revision_not_staged`: the candidate is already accepted, rejected or superseded (a newer ' +
    'version exists: read the candidate for `diff_to_current`).',
};

/** The OpenAPI text of each route of ReviewsPlatformController, one composed decorator per handler. */
export const ReviewsPlatformDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: 'The review queue: candidate revisions of every tenant',
        description:
          'Candidates in `status` (default `staged`: those awaiting a decision), oldest first ' +
          '(ascending `revisionId`), across every tenant or of one (`tenantId`), optionally of one ' +
          'document (`documentId`); each names its `tenantId`. Content and html are left out: read ' +
          'one candidate for them and its diff. At most `limit` (default 100) per page; ' +
          '`next_cursor` reads the next page, and is valid only with the same filters.',
      }),
      ApiOkResponse({ type: ReviewQueueResponse }),
      ApiProblemResponses({
        status: 400,
        description:
          '`validation_failed`: `tenantId` or `documentId` not a positive integer, `status` not a ' +
          'candidate status, `limit` outside 1..1000, an unknown parameter, or a cursor of another ' +
          'filter.',
      }),
    ),
  get: () =>
    applyDecorators(
      REVISION_ID,
      ApiOperation({
        summary: 'One candidate for review, with its diffs',
        description:
          'The candidate with its `base` version (id and content), its `candidate` content and html ' +
          'preview, and `diff`: the RFC 6902 JSON Patch from the base content to the candidate ' +
          "content. `current_version_id` is the document's current version; for a `superseded` " +
          'candidate `diff_to_current` is the RFC 6902 JSON Patch from the current content to the ' +
          "candidate's (what it would still change), null otherwise.",
      }),
      ApiOkResponse({ type: ReviewResponse }),
      ApiProblemResponses(
        { status: 400, description: '`validation_failed`: revisionId is not a positive integer.' },
        { status: 404, description: '`not_found`: no candidate revision has this id.' },
      ),
    ),
  accept: () =>
    applyDecorators(
      REVISION_ID,
      ApiOperation({
        summary: 'Accept a staged candidate',
        description:
          "The candidate's content becomes the document's next version (`resulting_version_id`), " +
          'with the same decision and events as the administration CLI: `document.version_created`, ' +
          '`external_revision.superseded` for every other staged candidate on an older base, ' +
          '`external_revision.accepted`. `decided_by` is `X-Acting-User`, `decision_note` the ' +
          '`note`. The body is optional.',
      }),
      DECISION_BODY,
      ApiOkResponse({ type: ReviewDecisionResponse }),
      ApiProblemResponses(
        {
          status: 400,
          codes: ['validation_failed', 'version_conflict'],
          description:
            '`validation_failed`: revisionId is not a positive integer, `note` too long, an unknown ' +
            'field, or `X-Acting-User` missing or invalid. `version_conflict`: the base is no longer ' +
            'current although the candidate is still staged (a safeguard: every new version ' +
            'supersedes the staged candidates on older bases).',
        },
        { status: 404, description: '`not_found`: no candidate revision has this id.' },
        NOT_STAGED,
        413,
      ),
    ),
  reject: () =>
    applyDecorators(
      REVISION_ID,
      ApiOperation({
        summary: 'Reject a staged candidate',
        description:
          'Marks the candidate `rejected` (event `external_revision.rejected`), as the ' +
          'administration CLI does; the document does not change. `decided_by` is `X-Acting-User`, ' +
          '`decision_note` the `note`. The body is optional.',
      }),
      DECISION_BODY,
      ApiOkResponse({ type: ReviewDecisionResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: revisionId is not a positive integer, `note` too long, an unknown ' +
            'field, or `X-Acting-User` missing or invalid.',
        },
        { status: 404, description: '`not_found`: no candidate revision has this id.' },
        { status: 409, codes: ['revision_not_staged'] },
        413,
      ),
    ),
};
