import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { JsonText } from '../../../common/http/json-text.js';
import { ParseIdPipe } from '../../../common/http/params.js';
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
import { ReviewsPlatformDocs } from './reviews.platform.openapi.js';

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

@ApiTags('reviews')
@Controller('revisions')
@PlatformAuthorized('platform:reviews')
export class ReviewsPlatformController {
  constructor(private readonly reviews: ReviewQueueService) {}

  @Get()
  @ReviewsPlatformDocs.list()
  list(@Query() q: ReviewQueueQuery): Promise<JsonText<ReviewQueueResponse>> {
    return this.reviews.list(q, q);
  }

  @Get(':revisionId')
  @ReviewsPlatformDocs.get()
  get(@Param('revisionId', ParseIdPipe) revisionId: number): Promise<ReviewResponse> {
    return this.reviews.get(revisionId);
  }

  @Post(':revisionId/accept')
  @HttpCode(200)
  @Audited(decisionAudit('revision.accept'))
  @ReviewsPlatformDocs.accept()
  accept(
    @Param('revisionId', ParseIdPipe) revisionId: number,
    @Body() body: ReviewDecisionRequest,
    @ActingUser() actor: string,
    @Req() req: HttpRequest,
  ): Promise<ReviewDecisionResponse> {
    return this.reviews.accept(revisionId, actor, body.note, auditTenant(req));
  }

  @Post(':revisionId/reject')
  @HttpCode(200)
  @Audited(decisionAudit('revision.reject'))
  @ReviewsPlatformDocs.reject()
  reject(
    @Param('revisionId', ParseIdPipe) revisionId: number,
    @Body() body: ReviewDecisionRequest,
    @ActingUser() actor: string,
    @Req() req: HttpRequest,
  ): Promise<ReviewDecisionResponse> {
    return this.reviews.reject(revisionId, actor, body.note, auditTenant(req));
  }
}
