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
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { EXTERNAL_ID_PATTERN } from '../../../common/database/external-id.js';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { MAX_ID, ParseIdPipe } from '../../../common/http/params.js';
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
  ImportReportResponse,
  PlatformDocumentResponse,
  PlatformFileResponse,
  PlatformProjectResponse,
  PlatformVersionResponse,
} from './dto/content.response.js';
import {
  ImportDocumentLine,
  ImportFileLine,
  ImportProjectLine,
} from './dto/import-line.request.js';
import { ETAG_HEADER } from '../../../common/http/etag-header.js';

/** The one media type of the import's body (read as a stream, line by line). */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

const EXTERNAL_ID_PARAM = ApiParam({
  name: 'externalId',
  description:
    "The platform's own id: 1 to 200 characters of `A-Z a-z 0-9 . _ : -`, unique per tenant and kind; anything else is 400 `validation_failed`.",
  schema: { type: 'string', pattern: EXTERNAL_ID_PATTERN.source, minLength: 1, maxLength: 200 },
});

/** A path id as ParseIdPipe takes it. */
const idParam = (name: string, what: string) =>
  ApiParam({
    name,
    description: `The ${what}'s id (a positive 32-bit integer; anything else is 400 \`validation_failed\`).`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_ID },
  });

const UPSERT_NOTE = ' Answers 201 when it was created, 200 when it existed and was updated.';

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
  @ApiOperation({
    summary: "Create or update a project by the platform's id",
    description:
      'An absent `description` or `status` takes its default when the project is created and keeps the stored value when it is updated.' +
      UPSERT_NOTE,
  })
  @idParam('tenantId', 'tenant')
  @EXTERNAL_ID_PARAM
  @ApiCreatedResponse({ type: PlatformProjectResponse, description: 'Created.' })
  @ApiOkResponse({ type: PlatformProjectResponse, description: 'Updated.' })
  @ApiProblemResponses(413, { status: 404, description: '`not_found`: unknown tenant.' })
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
  @ApiOperation({
    summary: "Create or update a document by the platform's id",
    description:
      "Created with `content` as its first version (source `platform`, event `document.version_created`); `content` is then required. When the document exists, only its title (and project: the id names one document of the tenant) is updated and `content` is not used: new versions are made by POST /documents/{documentId}/versions. `ETag` is the current version's content hash." +
      UPSERT_NOTE,
  })
  @idParam('projectId', 'project')
  @EXTERNAL_ID_PARAM
  @ApiCreatedResponse({
    type: PlatformDocumentResponse,
    description: 'Created.',
    headers: ETAG_HEADER,
  })
  @ApiOkResponse({ type: PlatformDocumentResponse, description: 'Updated.', headers: ETAG_HEADER })
  @ApiProblemResponses(413, {
    status: 404,
    description: '`not_found`: unknown project.',
  })
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
  @ApiOperation({
    summary: "A new version from the platform's editing",
    description:
      "Creates the next version (source `platform`) and publishes `document.version_created`. Every candidate revision still staged on an older base is superseded (`external_revision.superseded`), exactly as when a candidate is accepted, so no later accept can overwrite this version. With `If-Match`, the version is made only while the current version's content hash is one it names (checked under the document's lock): else 412 `precondition_failed`. `ETag` is the new version's content hash.",
  })
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description:
      'Content hash of the current version, quoted or bare; a list matches if any tag does; `*` matches any. Weak tags (`W/"…"`) are 400 `validation_failed`.',
  })
  @idParam('documentId', 'document')
  @ApiCreatedResponse({ type: PlatformVersionResponse, headers: ETAG_HEADER })
  @ApiProblemResponses(
    413,
    { status: 404, description: '`not_found`: unknown document.' },
    {
      status: 412,
      description:
        '`precondition_failed`: `If-Match` is not the current content hash; `current_version_id` names the current version.',
    },
  )
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
  @ApiOperation({
    summary: "Create or replace a file's metadata by the platform's id",
    description:
      'The metadata is replaced as a whole (an absent `sha256` is null). `storage_path` is stored and never answered, listed or logged. The id names one file of the tenant: a file of another project of the tenant moves to this one.' +
      UPSERT_NOTE,
  })
  @idParam('projectId', 'project')
  @EXTERNAL_ID_PARAM
  @ApiCreatedResponse({ type: PlatformFileResponse, description: 'Created.' })
  @ApiOkResponse({ type: PlatformFileResponse, description: 'Replaced.' })
  @ApiProblemResponses(413, { status: 404, description: '`not_found`: unknown project.' })
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
  @ApiOperation({
    summary: "Delete a file's metadata by the platform's id",
    description: 'Deletes the metadata only (the service never holds the bytes).',
  })
  @idParam('projectId', 'project')
  @EXTERNAL_ID_PARAM
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblemResponses({
    status: 404,
    description: '`not_found`: unknown project, or no file of it has this id.',
  })
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
  @ApiOperation({
    summary: 'Import projects, documents and files (NDJSON, streamed)',
    description:
      'One JSON object a line (`application/x-ndjson`, UTF-8, not compressed), each the upsert its `kind` names, as the PUT routes do it: `project` (`external_id`, `name`, `description`?, `status`?), `document` (`project_external_id`, `external_id`, `title`, `content`?; content is required when the document is created), `file` (`project_external_id`, `external_id`, `name`, `media_type`, `size_bytes`, `sha256`?, `storage_path`). A line may name a project made by an earlier line. The body is read as it arrives and written up to 1,000 lines per transaction, so it may be far larger than `BODY_LIMIT`; each line is at most `BODY_LIMIT` and its content within `CONTENT_MAX_NODES`/`CONTENT_MAX_DEPTH`. A refused line is an entry of `errors` (line numbers from 1; the first 100 kept), never a failed request: the other lines are kept. Blank lines are skipped. Running the same file again creates nothing (every line is an update).',
  })
  @idParam('tenantId', 'tenant')
  @ApiConsumes(NDJSON_MEDIA_TYPE)
  @ApiExtraModels(ImportProjectLine, ImportDocumentLine, ImportFileLine)
  @ApiBody({
    description: 'Each LINE of the body is one of these objects (NDJSON).',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(ImportProjectLine) },
        { $ref: getSchemaPath(ImportDocumentLine) },
        { $ref: getSchemaPath(ImportFileLine) },
      ],
      discriminator: { propertyName: 'kind' },
    },
  })
  @ApiOkResponse({ type: ImportReportResponse })
  @ApiProblemResponses(
    { status: 404, description: '`not_found`: unknown tenant.' },
    {
      status: 415,
      description:
        '`unsupported_media_type`: a body that is not `application/x-ndjson` in UTF-8, or compressed.',
    },
  )
  importNdjson(
    @ActingUser() _actor: string,
    @Param('tenantId', ParseIdPipe) tenantId: number,
    @RequestStream() body: IncomingMessage,
  ): Promise<ImportReport> {
    return this.content.importNdjson(tenantId, body);
  }
}
