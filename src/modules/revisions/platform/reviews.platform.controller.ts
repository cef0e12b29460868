import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import type { JsonText } from '../../../common/http/json-text.js';
import { MAX_ID, ParseIdPipe } from '../../../common/http/params.js';
import type { HttpRequest } from '../../../common/http/platform/http-platform.js';
import { Audited, auditLocalsOf, type AuditSpec } from '../../audit/audited.decorator.js';
import { ActingUser, PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { ReviewQueueService } from '../review-queue.service.js';
import { ReviewDecisionRequest } from './dto/review-decision.request.js';
import { ReviewQueueQuery } from './dto/review-queue.query.js';
import {
  ReviewDecisionResponse,
  ReviewQueueResponse,
  ReviewResponse,
} from './dto/review.response.js';

/** The audit line of a decision: on the revision, in the tenant whose candidate it is. */
const decisionAudit = (action: string): AuditSpec => ({
  action,
  target: (req) => `revision:${String(req.params['revisionId'])}`,
  tenant: (_req, body) => (body as ReviewDecisionResponse | undefined)?.tenant_id ?? null,
});

/**
 * The tenant of the decided revision for the request's audit line as soon as the decision service
 * knows it, so a refused decision (409) is filed under its tenant too.
 */
const auditTenant =
  (req: HttpRequest) =>
  (tenantId: number): void => {
    auditLocalsOf(req).tenantId = tenantId;
  };

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

@ApiTags('reviews')
@Controller('revisions')
@PlatformAuthorized('platform:reviews')
export class ReviewsPlatformController {
  constructor(private readonly reviews: ReviewQueueService) {}

  @Get()
  @ApiOperation({
    summary: 'The review queue: candidate revisions of every tenant',
    description:
      'Candidates in `status` (default `staged`: those awaiting a decision), oldest first ' +
      '(ascending `revisionId`), across every tenant or of one (`tenantId`), optionally of one ' +
      'document (`documentId`); each names its `tenantId`. Content and html are left out: read ' +
      'one candidate for them and its diff. At most `limit` (default 100) per page; ' +
      '`next_cursor` reads the next page, and is valid only with the same filters.',
  })
  @ApiOkResponse({ type: ReviewQueueResponse })
  @ApiProblemResponses({
    status: 400,
    description:
      '`validation_failed`: `tenantId` or `documentId` not a positive integer, `status` not a ' +
      'candidate status, `limit` outside 1..1000, an unknown parameter, or a cursor of another ' +
      'filter.',
  })
  list(@Query() q: ReviewQueueQuery): Promise<JsonText<ReviewQueueResponse>> {
    return this.reviews.list(q, q);
  }

  @Get(':revisionId')
  @REVISION_ID
  @ApiOperation({
    summary: 'One candidate for review, with its diffs',
    description:
      'The candidate with its `base` version (id and content), its `candidate` content and html ' +
      'preview, and `diff`: the RFC 6902 JSON Patch from the base content to the candidate ' +
      "content. `current_version_id` is the document's current version; for a `superseded` " +
      'candidate `diff_to_current` is the RFC 6902 JSON Patch from the current content to the ' +
      "candidate's (what it would still change), null otherwise.",
  })
  @ApiOkResponse({ type: ReviewResponse })
  @ApiProblemResponses(
    { status: 400, description: '`validation_failed`: revisionId is not a positive integer.' },
    { status: 404, description: '`not_found`: no candidate revision has this id.' },
  )
  get(@Param('revisionId', ParseIdPipe) revisionId: number): Promise<ReviewResponse> {
    return this.reviews.get(revisionId);
  }

  @Post(':revisionId/accept')
  @REVISION_ID
  @HttpCode(200)
  @Audited(decisionAudit('revision.accept'))
  @ApiOperation({
    summary: 'Accept a staged candidate',
    description:
      "The candidate's content becomes the document's next version (`resulting_version_id`), " +
      'with the same decision and events as the administration CLI: `document.version_created`, ' +
      '`external_revision.superseded` for every other staged candidate on an older base, ' +
      '`external_revision.accepted`. `decided_by` is `X-Acting-User`, `decision_note` the ' +
      '`note`. The body is optional.',
  })
  @DECISION_BODY
  @ApiOkResponse({ type: ReviewDecisionResponse })
  @ApiProblemResponses(
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
  )
  accept(
    @Param('revisionId', ParseIdPipe) revisionId: number,
    @Body() body: ReviewDecisionRequest,
    @ActingUser() actor: string,
    @Req() req: HttpRequest,
  ): Promise<ReviewDecisionResponse> {
    return this.reviews.accept(revisionId, actor, body.note, auditTenant(req));
  }

  @Post(':revisionId/reject')
  @REVISION_ID
  @HttpCode(200)
  @Audited(decisionAudit('revision.reject'))
  @ApiOperation({
    summary: 'Reject a staged candidate',
    description:
      'Marks the candidate `rejected` (event `external_revision.rejected`), as the ' +
      'administration CLI does; the document does not change. `decided_by` is `X-Acting-User`, ' +
      '`decision_note` the `note`. The body is optional.',
  })
  @DECISION_BODY
  @ApiOkResponse({ type: ReviewDecisionResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: revisionId is not a positive integer, `note` too long, an unknown ' +
        'field, or `X-Acting-User` missing or invalid.',
    },
    { status: 404, description: '`not_found`: no candidate revision has this id.' },
    { status: 409, codes: ['revision_not_staged'] },
    413,
  )
  reject(
    @Param('revisionId', ParseIdPipe) revisionId: number,
    @Body() body: ReviewDecisionRequest,
    @ActingUser() actor: string,
    @Req() req: HttpRequest,
  ): Promise<ReviewDecisionResponse> {
    return this.reviews.reject(revisionId, actor, body.note, auditTenant(req));
  }
}
