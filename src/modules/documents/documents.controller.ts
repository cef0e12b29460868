import { Controller, Get, Headers, HttpStatus, Param, Query, Res } from '@nestjs/common';
import type { HttpResponse } from '../../common/http/platform/http-platform.js';
import { ParseIdPipe } from '../../common/http/params.js';
import { CursorPageQuery } from '../../common/pagination/page-query.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import { DocumentsReadService } from './documents-read.service.js';
import {
  DocumentListResponse,
  DocumentResponse,
  VersionListResponse,
  VersionResponse,
} from './dto/document.response.js';
import { etagOf, ifNoneMatchHits } from './etag.js';
import type { JsonText } from '../../common/http/json-text.js';
import { DocumentsDocs } from './documents.openapi.js';

@Controller()
export class DocumentsController {
  constructor(private readonly documents: DocumentsReadService) {}

  @Get('projects/:projectId/documents')
  @Authorized({ scope: 'projects:read', entitlement: 'api.read' })
  @DocumentsDocs.list()
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseIdPipe) projectId: number,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<DocumentListResponse>> {
    return this.documents.listProjectDocuments(principal.tenantId, projectId, query);
  }

  @Get('documents/:documentId')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @DocumentsDocs.get()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
  ): Promise<JsonText<DocumentResponse>> {
    return this.documents.getDocument(principal.tenantId, documentId);
  }

  @Get('documents/:documentId/versions')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @DocumentsDocs.versions()
  versions(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<VersionListResponse>> {
    return this.documents.listVersions(principal.tenantId, documentId, query);
  }

  @Get('documents/:documentId/versions/:versionId')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @DocumentsDocs.version()
  async version(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Param('versionId', ParseIdPipe) versionId: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: HttpResponse,
  ): Promise<VersionResponse | undefined> {
    const version = await this.documents.readVersion(principal.tenantId, documentId, versionId);
    const etag = etagOf(version.content_hash);
    reply.header('ETag', etag);
    if (!ifNoneMatchHits(ifNoneMatch, etag)) return version;
    reply.status(HttpStatus.NOT_MODIFIED);
    return undefined;
  }
}
