import { Controller, Get, Headers, HttpStatus, Param, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { HttpResponse } from '../../common/http/platform/http-platform.js';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
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
import { ETAG_HEADER } from '../../common/http/etag-header.js';

const INVALID_ID = {
  status: 400,
  description: '`validation_failed`: an identifier is not a positive integer.',
} as const;

@Controller()
export class DocumentsController {
  constructor(private readonly documents: DocumentsReadService) {}

  @Get('projects/:projectId/documents')
  @ApiTags('projects')
  @Authorized({ scope: 'projects:read', entitlement: 'api.read' })
  @ApiOperation({
    summary: "List a project's documents",
    description:
      'The documents of one project of the tenant, ordered by documentId, without their ' +
      'versions. At most `limit` (default 1000) per page; `next_cursor` reads the next page.',
  })
  @ApiOkResponse({ type: DocumentListResponse })
  @ApiProblemResponses({
    status: 400,
    codes: ['project_not_found', 'validation_failed'],
    description:
      '`project_not_found`: the project is unknown or belongs to another tenant; `validation_failed`: projectId is not a positive integer, `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
  })
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseIdPipe) projectId: number,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<DocumentListResponse>> {
    return this.documents.listProjectDocuments(principal.tenantId, projectId, query);
  }

  @Get('documents/:documentId')
  @ApiTags('documents')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @ApiOperation({
    summary: 'Get a document with its version index',
    description:
      'The index lists the versions (ascending by number) without their content: all of them ' +
      'for a document with up to 1,000 versions; beyond that the first 1,000, and ' +
      '`versions_next_cursor` continues through GET /documents/{documentId}/versions.',
  })
  @ApiOkResponse({ type: DocumentResponse })
  @ApiProblemResponses(INVALID_ID, {
    status: 404,
    description: '`not_found`: the document is unknown or belongs to another tenant.',
  })
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
  ): Promise<JsonText<DocumentResponse>> {
    return this.documents.getDocument(principal.tenantId, documentId);
  }

  @Get('documents/:documentId/versions')
  @ApiTags('documents')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @ApiOperation({
    summary: "Walk a document's version index",
    description:
      'The entries of the version index (as in GET /documents/{documentId}), ascending by ' +
      'number, one page at a time. At most `limit` (default 1000) per page; `next_cursor` reads ' +
      "the next page. The document read's `versions_next_cursor` is a cursor of this list.",
  })
  @ApiOkResponse({ type: VersionListResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: documentId is not a positive integer, `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
    },
    {
      status: 404,
      description: '`not_found`: the document is unknown or belongs to another tenant.',
    },
  )
  versions(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<VersionListResponse>> {
    return this.documents.listVersions(principal.tenantId, documentId, query);
  }

  @Get('documents/:documentId/versions/:versionId')
  @ApiTags('documents')
  @Authorized({ scope: 'documents:read', entitlement: 'api.read' })
  @ApiOperation({
    summary: 'Get one version of a document',
    description:
      'The `ETag` is the quoted `content_hash`; send it back in `If-None-Match` to get 304 while the version is unchanged.',
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description:
      'An entity tag from a previous response (`"<content_hash>"`), a list of them, or `*`.',
  })
  @ApiOkResponse({
    type: VersionResponse,
    headers: ETAG_HEADER,
  })
  @ApiResponse({
    status: HttpStatus.NOT_MODIFIED,
    description: 'If-None-Match matched the version: no body.',
    headers: ETAG_HEADER,
  })
  @ApiProblemResponses(INVALID_ID, {
    status: 404,
    description:
      '`not_found`: the document or version is unknown, belongs to another tenant, or the version is not of this document.',
  })
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
