import type { IncomingMessage } from 'node:http';
import {
  Body,
  Controller,
  Delete,
  HttpCode,
  Param,
  Post,
  Put,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '../../../common/http/params.js';
import type { HttpRequest, HttpResponse } from '../../../common/http/platform/http-platform.js';
import { RequestStream } from '../../../common/http/request-stream.decorator.js';
import { Audited } from '../../audit/audited.decorator.js';
import { ActingUser, PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { ContentService, type ImportReport, type OfTenant } from '../content.service.js';
import { ContentTenantInterceptor } from './content-tenant.interceptor.js';
import { tenantOfAnswer } from '../../audit/route-tenant.interceptor.js';
import {
  CreatePlatformVersionRequest,
  PutPlatformDocumentRequest,
  PutPlatformFileRequest,
  PutPlatformProjectRequest,
} from './dto/content.request.js';
import {
  PlatformDocumentResponse,
  PlatformFileResponse,
  PlatformProjectResponse,
  PlatformVersionResponse,
} from './dto/content.response.js';
import { ContentPlatformDocs } from './content.platform.openapi.js';

/** Sets 201 for a created row, 200 for an updated one, and answers the row. */
function answer<V>(reply: HttpResponse, upserted: { created: boolean; view: V }): V {
  reply.status(upserted.created ? 201 : 200);
  return upserted.view;
}

/**
 * The host platform's content, keyed by its own ids: projects, documents and file metadata
 * created or updated by PUT, new versions from the platform's editing, and the NDJSON import.
 */
@ApiTags('content')
@Controller()
@PlatformAuthorized('platform:content')
export class ContentPlatformController {
  constructor(private readonly content: ContentService) {}

  @Put('tenants/:tenantId/projects/:externalId')
  @Audited({
    action: 'platform.project.upsert',
    target: (req) => `project:external:${String(req.params['externalId'])}`,
    tenant: (req) => Number(req.params['tenantId']),
  })
  @ContentPlatformDocs.putProject()
  async putProject(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @Param('externalId') externalId: string,
    @Body() body: PutPlatformProjectRequest,
    @Res({ passthrough: true }) reply: HttpResponse,
  ): Promise<OfTenant<PlatformProjectResponse>> {
    return answer(reply, await this.content.putProject(tenantId, externalId, body));
  }

  @Put('projects/:projectId/documents/:externalId')
  @Audited({
    action: 'platform.document.upsert',
    target: (req) =>
      `project:${String(req.params['projectId'])}:document:external:${String(req.params['externalId'])}`,
    tenant: tenantOfAnswer,
  })
  @UseInterceptors(ContentTenantInterceptor)
  @ContentPlatformDocs.putDocument()
  async putDocument(
    @ActingUser() _actor: string,
    @Param('projectId', ParseIdPipe) projectId: number,
    @Param('externalId') externalId: string,
    @Body() body: PutPlatformDocumentRequest,
    @Res({ passthrough: true }) reply: HttpResponse,
  ): Promise<OfTenant<PlatformDocumentResponse>> {
    const upserted = await this.content.putDocument(projectId, externalId, body);
    reply.header('ETag', `"${upserted.view.content_hash}"`);
    return answer(reply, upserted);
  }

  @Post('documents/:documentId/versions')
  @Audited({
    action: 'platform.document.version',
    target: (req) => `document:${String(req.params['documentId'])}`,
    tenant: tenantOfAnswer,
  })
  @UseInterceptors(ContentTenantInterceptor)
  @ContentPlatformDocs.createVersion()
  async createVersion(
    @ActingUser() _actor: string,
    @Param('documentId', ParseIdPipe) documentId: number,
    @Body() body: CreatePlatformVersionRequest,
    @Res({ passthrough: true }) reply: HttpResponse,
    // read from the request: `@Headers('if-match')` would document a second, required header
    @Req() req: HttpRequest,
  ): Promise<OfTenant<PlatformVersionResponse>> {
    const ifMatch = req.headers['if-match'];
    const version = await this.content.createVersion(documentId, body.content, ifMatch);
    reply.status(201).header('ETag', `"${version.content_hash}"`);
    return version;
  }

  @Put('projects/:projectId/files/:externalId')
  @Audited({
    action: 'platform.file.upsert',
    target: (req) =>
      `project:${String(req.params['projectId'])}:file:external:${String(req.params['externalId'])}`,
    tenant: tenantOfAnswer,
  })
  @UseInterceptors(ContentTenantInterceptor)
  @ContentPlatformDocs.putFile()
  async putFile(
    @ActingUser() _actor: string,
    @Param('projectId', ParseIdPipe) projectId: number,
    @Param('externalId') externalId: string,
    @Body() body: PutPlatformFileRequest,
    @Res({ passthrough: true }) reply: HttpResponse,
  ): Promise<OfTenant<PlatformFileResponse>> {
    return answer(reply, await this.content.putFile(projectId, externalId, body));
  }

  @Delete('projects/:projectId/files/:externalId')
  @HttpCode(204)
  @Audited({
    action: 'platform.file.delete',
    target: (req) =>
      `project:${String(req.params['projectId'])}:file:external:${String(req.params['externalId'])}`,
    tenant: tenantOfAnswer,
  })
  @UseInterceptors(ContentTenantInterceptor)
  @ContentPlatformDocs.deleteFile()
  async deleteFile(
    @ActingUser() _actor: string,
    @Param('projectId', ParseIdPipe) projectId: number,
    @Param('externalId') externalId: string,
  ): Promise<void> {
    return this.content.deleteFile(projectId, externalId);
  }

  @Post('tenants/:tenantId/import')
  @HttpCode(200)
  @Audited({
    action: 'platform.import',
    target: (req) => `tenant:${String(req.params['tenantId'])}`,
    tenant: (req) => Number(req.params['tenantId']),
  })
  @ContentPlatformDocs.importNdjson()
  importNdjson(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @RequestStream() body: IncomingMessage,
  ): Promise<ImportReport> {
    return this.content.importNdjson(tenantId, body);
  }
}
