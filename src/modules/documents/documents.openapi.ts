// The OpenAPI text of documents.controller.ts: one composed decorator per handler,
// `DocumentsDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import {
  DocumentListResponse,
  DocumentResponse,
  VersionListResponse,
  VersionResponse,
} from './dto/document.response.js';
import { ETAG_HEADER } from '../../common/http/etag-header.js';

const INVALID_ID = {
  status: 400,
  description: '`validation_failed`: an identifier is not a positive integer.',
} as const;

/** The OpenAPI text of each route of DocumentsController, one composed decorator per handler. */
export const DocumentsDocs = {
  list: () =>
    applyDecorators(
      ApiTags('projects'),
      ApiOperation({
        summary: "List a project's documents",
        description:
          'The documents of one project of the tenant, ordered by documentId, without their ' +
          'versions. At most `limit` (default 1000) per page; `next_cursor` reads the next page.',
      }),
      ApiOkResponse({ type: DocumentListResponse }),
      ApiProblemResponses({
        status: 400,
        codes: ['project_not_found', 'validation_failed'],
        description:
          '`project_not_found`: the project is unknown or belongs to another tenant; `validation_failed`: projectId is not a positive integer, `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
      }),
    ),
  get: () =>
    applyDecorators(
      ApiTags('documents'),
      ApiOperation({
        summary: 'Get a document with its version index',
        description:
          'The index lists the versions (ascending by number) without their content: all of them ' +
          'for a document with up to 1,000 versions; beyond that the first 1,000, and ' +
          '`versions_next_cursor` continues through GET /documents/{documentId}/versions.',
      }),
      ApiOkResponse({ type: DocumentResponse }),
      ApiProblemResponses(INVALID_ID, {
        status: 404,
        description: '`not_found`: the document is unknown or belongs to another tenant.',
      }),
    ),
  versions: () =>
    applyDecorators(
      ApiTags('documents'),
      ApiOperation({
        summary: "Walk a document's version index",
        description:
          'The entries of the version index (as in GET /documents/{documentId}), ascending by ' +
          'number, one page at a time. At most `limit` (default 1000) per page; `next_cursor` reads ' +
          "the next page. The document read's `versions_next_cursor` is a cursor of this list.",
      }),
      ApiOkResponse({ type: VersionListResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: documentId is not a positive integer, `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
        },
        {
          status: 404,
          description: '`not_found`: the document is unknown or belongs to another tenant.',
        },
      ),
    ),
  version: () =>
    applyDecorators(
      ApiTags('documents'),
      ApiOperation({
        summary: 'Get one version of a document',
        description:
          'The `ETag` is the quoted `content_hash`; send it back in `If-None-Match` to get 304 while the version is unchanged.',
      }),
      ApiHeader({
        name: 'If-None-Match',
        required: false,
        description:
          'An entity tag from a previous response (`"<content_hash>"`), a list of them, or `*`.',
      }),
      ApiOkResponse({
        type: VersionResponse,
        headers: ETAG_HEADER,
      }),
      ApiResponse({
        status: HttpStatus.NOT_MODIFIED,
        description: 'If-None-Match matched the version: no body.',
        headers: ETAG_HEADER,
      }),
      ApiProblemResponses(INVALID_ID, {
        status: 404,
        description:
          '`not_found`: the document or version is unknown, belongs to another tenant, or the version is not of this document.',
      }),
    ),
};
