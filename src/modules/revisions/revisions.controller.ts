import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { HttpResponse } from '../../common/http/platform/http-platform.js';
import { ParseIdPipe } from '../../common/http/params.js';
import { CursorPageQuery } from '../../common/pagination/page-query.js';
import { Audited, documentTarget } from '../audit/audited.decorator.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import {
  RevisionDetailResponse,
  RevisionListResponse,
  StagedRevisionResponse,
} from './dto/revision.response.js';
import { StageRevisionRequest } from './dto/stage-revision.request.js';
import { RevisionsService } from './revisions.service.js';
import type { JsonText } from '../../common/http/json-text.js';
import { RevisionsDocs } from './revisions.openapi.js';

@ApiTags('revisions')
@Controller('documents/:documentId/external-revisions')
export class RevisionsController {
  constructor(private readonly revisions: RevisionsService) {}

  @Post()
  @Audited('revision.stage', documentTarget)
  @Authorized({ scope: 'revisions:write', entitlement: 'api.revisions' })
  @RevisionsDocs.stage()
  async stage(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() dto: StageRevisionRequest,
    @Res({ passthrough: true }) reply: HttpResponse,
    @Headers('if-match') ifMatch?: string,
    @Headers('lock-token') lockToken?: string,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<StagedRevisionResponse> {
    const result = await this.revisions.stage(principal, documentId, dto, {
      ifMatch,
      lockToken,
      idempotencyKey,
    });
    reply.status(result.status).header('Location', result.location);
    return result.body;
  }

  @Get()
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @RevisionsDocs.list()
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<RevisionListResponse>> {
    return this.revisions.list(principal.tenantId, documentId, query);
  }

  @Get(':revisionId')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @RevisionsDocs.get()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Param('revisionId', ParseIdPipe) revisionId: number,
  ): Promise<RevisionDetailResponse> {
    return this.revisions.get(principal.tenantId, documentId, revisionId);
  }
}
