// The OpenAPI text of projects.controller.ts: one composed decorator per handler,
// `ProjectsDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import {
  ProjectFileListResponse,
  ProjectListResponse,
  ProjectResponse,
} from './dto/project.response.js';

const PROJECT_NOT_FOUND = {
  status: 400,
  codes: ['project_not_found', 'validation_failed'],
  description:
    '`project_not_found`: the project is unknown or belongs to another tenant (answered alike: 400, not 404, on the project routes); `validation_failed`: projectId is not a positive integer.',
} as const;

const LIST_REFUSED = {
  ...PROJECT_NOT_FOUND,
  description:
    PROJECT_NOT_FOUND.description +
    ' Also `validation_failed` for `limit` outside 1..1000 or a cursor that is malformed or not of this list and tenant.',
} as const;

/** The OpenAPI text of each route of ProjectsController, one composed decorator per handler. */
export const ProjectsDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: 'List projects',
        description:
          "The tenant's projects ordered by projectId, one page at a time: by `offset`, or " +
          'by `cursor` for deep walks, which costs the same on any page. Every page carries ' +
          '`page.next_cursor` (`null` on the last page) and `page.total`, which is read from a ' +
          'counter kept with every create and delete, not counted per request.',
      }),
      ApiOkResponse({ type: ProjectListResponse }),
      ApiProblemResponses({
        status: 400,
        description:
          '`validation_failed`: limit not an integer in 1..100, offset not an integer in 0..2147483647 (never clamped), offset > 0 with a cursor, a cursor that is malformed or not of this list and tenant, or a query parameter this route does not take.',
      }),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Get a project',
        description:
          'One project of the tenant. A project of another tenant is answered like a missing one.',
      }),
      ApiOkResponse({ type: ProjectResponse }),
      ApiProblemResponses(PROJECT_NOT_FOUND),
    ),
  files: () =>
    applyDecorators(
      ApiOperation({
        summary: "List a project's file metadata",
        description:
          'Name, media type, size and checksum of each file, ascending fileId; never where it is ' +
          'stored. At most `limit` (default 1000) per page; `next_cursor` reads the next page.',
      }),
      ApiOkResponse({ type: ProjectFileListResponse }),
      ApiProblemResponses(LIST_REFUSED),
    ),
};
