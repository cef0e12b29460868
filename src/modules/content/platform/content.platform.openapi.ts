// The OpenAPI text of content.platform.controller.ts: one composed decorator per handler,
// `ContentPlatformDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
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
  getSchemaPath,
} from '@nestjs/swagger';
import { EXTERNAL_ID_PATTERN } from '../../../common/database/external-id.js';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { MAX_ID } from '../../../common/http/params.js';
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

/**
 * The one media type of the import's body (read as a stream, line by line): documented here, and
 * the platform API's body admission (platform-body-admission.ts) streams it.
 */
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

/** The OpenAPI text of each route of ContentPlatformController, one composed decorator per handler. */
export const ContentPlatformDocs = {
  putProject: () =>
    applyDecorators(
      ApiOperation({
        summary: "Create or update a project by the platform's id",
        description:
          'An absent `description` or `status` takes its default when the project is created and keeps the stored value when it is updated.' +
          UPSERT_NOTE,
      }),
      idParam('tenantId', 'tenant'),
      EXTERNAL_ID_PARAM,
      ApiCreatedResponse({ type: PlatformProjectResponse, description: 'Created.' }),
      ApiOkResponse({ type: PlatformProjectResponse, description: 'Updated.' }),
      ApiProblemResponses(413, { status: 404, description: '`not_found`: unknown tenant.' }),
    ),
  putDocument: () =>
    applyDecorators(
      ApiOperation({
        summary: "Create or update a document by the platform's id",
        description:
          "Created with `content` as its first version (source `platform`, event `document.version_created`); `content` is then required. When the document exists, only its title (and project: the id names one document of the tenant) is updated and `content` is not used: new versions are made by POST /documents/{documentId}/versions. `ETag` is the current version's content hash." +
          UPSERT_NOTE,
      }),
      idParam('projectId', 'project'),
      EXTERNAL_ID_PARAM,
      ApiCreatedResponse({
        type: PlatformDocumentResponse,
        description: 'Created.',
        headers: ETAG_HEADER,
      }),
      ApiOkResponse({
        type: PlatformDocumentResponse,
        description: 'Updated.',
        headers: ETAG_HEADER,
      }),
      ApiProblemResponses(413, {
        status: 404,
        description: '`not_found`: unknown project.',
      }),
    ),
  createVersion: () =>
    applyDecorators(
      ApiOperation({
        summary: "A new version from the platform's editing",
        description:
          "Creates the next version (source `platform`) and publishes `document.version_created`. Every candidate revision still staged on an older base is superseded (`external_revision.superseded`), exactly as when a candidate is accepted, so no later accept can overwrite this version. With `If-Match`, the version is made only while the current version's content hash is one it names (checked under the document's lock): else 412 `precondition_failed`. `ETag` is the new version's content hash.",
      }),
      ApiHeader({
        name: 'If-Match',
        required: false,
        description:
          'Content hash of the current version, quoted or bare; a list matches if any tag does; `*` matches any. Weak tags (`W/"…"`) are 400 `validation_failed`.',
      }),
      idParam('documentId', 'document'),
      ApiCreatedResponse({ type: PlatformVersionResponse, headers: ETAG_HEADER }),
      ApiProblemResponses(
        413,
        { status: 404, description: '`not_found`: unknown document.' },
        {
          status: 412,
          description:
            '`precondition_failed`: `If-Match` is not the current content hash; `current_version_id` names the current version.',
        },
      ),
    ),
  putFile: () =>
    applyDecorators(
      ApiOperation({
        summary: "Create or replace a file's metadata by the platform's id",
        description:
          'The metadata is replaced as a whole (an absent `sha256` is null). `storage_path` is stored and never answered, listed or logged. The id names one file of the tenant: a file of another project of the tenant moves to this one.' +
          UPSERT_NOTE,
      }),
      idParam('projectId', 'project'),
      EXTERNAL_ID_PARAM,
      ApiCreatedResponse({ type: PlatformFileResponse, description: 'Created.' }),
      ApiOkResponse({ type: PlatformFileResponse, description: 'Replaced.' }),
      ApiProblemResponses(413, { status: 404, description: '`not_found`: unknown project.' }),
    ),
  deleteFile: () =>
    applyDecorators(
      ApiOperation({
        summary: "Delete a file's metadata by the platform's id",
        description: 'Deletes the metadata only (the service never holds the bytes).',
      }),
      idParam('projectId', 'project'),
      EXTERNAL_ID_PARAM,
      ApiNoContentResponse({ description: 'Deleted.' }),
      ApiProblemResponses({
        status: 404,
        description: '`not_found`: unknown project, or no file of it has this id.',
      }),
    ),
  importNdjson: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Import projects, documents and files (NDJSON, streamed)',
        description:
          'One JSON object a line (`application/x-ndjson`, UTF-8, not compressed), each the upsert its `kind` names, as the PUT routes do it: `project` (`external_id`, `name`, `description`?, `status`?), `document` (`project_external_id`, `external_id`, `title`, `content`?; content is required when the document is created), `file` (`project_external_id`, `external_id`, `name`, `media_type`, `size_bytes`, `sha256`?, `storage_path`). A line may name a project made by an earlier line. The body is read as it arrives and written up to 1,000 lines per transaction, so it may be far larger than `BODY_LIMIT`; each line is at most `BODY_LIMIT` and its content within `CONTENT_MAX_NODES`/`CONTENT_MAX_DEPTH`. A refused line is an entry of `errors` (line numbers from 1; the first 100 kept), never a failed request: the other lines are kept. Blank lines are skipped. Running the same file again creates nothing (every line is an update).',
      }),
      idParam('tenantId', 'tenant'),
      ApiConsumes(NDJSON_MEDIA_TYPE),
      ApiExtraModels(ImportProjectLine, ImportDocumentLine, ImportFileLine),
      ApiBody({
        description: 'Each LINE of the body is one of these objects (NDJSON).',
        schema: {
          oneOf: [
            { $ref: getSchemaPath(ImportProjectLine) },
            { $ref: getSchemaPath(ImportDocumentLine) },
            { $ref: getSchemaPath(ImportFileLine) },
          ],
          discriminator: { propertyName: 'kind' },
        },
      }),
      ApiOkResponse({ type: ImportReportResponse }),
      ApiProblemResponses(
        { status: 404, description: '`not_found`: unknown tenant.' },
        {
          status: 415,
          description:
            '`unsupported_media_type`: a body that is not `application/x-ndjson` in UTF-8, or compressed.',
        },
      ),
    ),
};
