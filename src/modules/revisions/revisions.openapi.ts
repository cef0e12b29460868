// The OpenAPI text of revisions.controller.ts: one composed decorator per handler,
// `RevisionsDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { ApiProblemResponses } from '../../common/http/api-problem-responses.js';
import {
  RevisionDetailResponse,
  RevisionListResponse,
  StagedRevisionResponse,
} from './dto/revision.response.js';
import { StageRevisionRequest } from './dto/stage-revision.request.js';
import { IDEMPOTENCY_KEY_MAX } from './staging-headers.js';

/** The OpenAPI text of each route of RevisionsController, one composed decorator per handler. */
export const RevisionsDocs = {
  stage: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Stage a candidate external revision',
        description:
          'Proposes new content for the document as a candidate in status `staged`. It never changes ' +
          "the document: only a platform user can accept it, in the platform's own interface (no API " +
          'operation accepts, rejects or edits a candidate).\n\n' +
          'The base is `base_version_id`, or the current version when omitted. The request is refused ' +
          'with 400 `version_conflict` when the base is not the current version or `If-Match` does not ' +
          "match the current version's content hash; the check and the insert are atomic, so a 201 was " +
          'staged against the version current at its commit.\n\n' +
          'Optional fields may be omitted or `null`. With `Idempotency-Key`, a retry with the same key ' +
          '(same credential, same document) and the same request within 24 h returns the first ' +
          'response again (status, body and `Location`); "the same request" means the same body ' +
          '(canonical JSON, an absent optional field equal to null), the same `If-Match` (quoted and ' +
          'bare count as equal) and the same presence of `Lock-Token` (its value is not compared). ' +
          'The same key with another request gives 409 `idempotency_key_reused`. Only a successful ' +
          'staging is remembered: a refused request leaves no trace and may be retried with its key.',
      }),
      ApiHeader({
        name: 'Idempotency-Key',
        required: false,
        description: `1 to ${IDEMPOTENCY_KEY_MAX} characters; remembered for 24 hours per credential and document.`,
        schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX },
      }),
      ApiHeader({
        name: 'Lock-Token',
        required: false,
        description:
          'The `glk_…` token of the live lock, required while the document is checked out.',
      }),
      ApiHeader({
        name: 'If-Match',
        required: false,
        description:
          'Content hash of the current version (the `ETag` of GET /documents/{documentId}/versions/{versionId}), quoted or bare; a list of tags matches if any does; `*` matches any current version. Weak tags (`W/"…"`) are 400 `validation_failed`.',
      }),
      ApiBody({
        type: StageRevisionRequest,
        examples: {
          full: {
            summary: 'Against a known base version, with a preview and a reference',
            value: {
              content: {
                title: 'Access policy',
                sections: [{ heading: 'Scope', body: 'All staff and contractors.' }],
              },
              base_version_id: 41,
              html: '<h1>Access policy</h1><p>All staff and contractors.</p>',
              source_reference: 'DMS-2024-0042',
            },
          },
          minimal: {
            summary: 'Only the content, against the current version',
            value: { content: { title: 'Access policy', sections: [] } },
          },
        },
      }),
      ApiCreatedResponse({
        type: StagedRevisionResponse,
        description:
          'Candidate revision staged; `Location` names it. A replay of an idempotent request answers the first response again.',
        headers: {
          Location: {
            description: '/api/v1/documents/{documentId}/external-revisions/{revisionId}',
            schema: { type: 'string' },
          },
        },
      }),
      ApiProblemResponses(
        {
          status: 400,
          codes: ['validation_failed', 'version_conflict'],
          description:
            '`validation_failed` (body, path or headers invalid; `base_version_id` not a version of this document) or `version_conflict` (stale base or If-Match; `detail` names the base and the current version).',
        },
        { status: 404, description: '`not_found`: unknown document or one of another tenant.' },
        { status: 409, codes: ['idempotency_key_reused'] },
        413,
        {
          status: 423,
          description:
            '`document_locked`: a live lock exists and `Lock-Token` is not its token; the body adds the `expires_at` of the lock.',
        },
      ),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({
        summary: 'List the candidate revisions of a document',
        description:
          'The candidates of the document in ascending `revisionId`, with their decision. Content and ' +
          'the html preview are left out; read one candidate for them. At most `limit` (default ' +
          '1000) per page; `next_cursor` reads the next page.',
      }),
      ApiOkResponse({ type: RevisionListResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description:
            '`validation_failed`: documentId is not a positive integer, `limit` is outside 1..1000, or the cursor is malformed or not of this list and tenant.',
        },
        { status: 404, description: '`not_found`: unknown document or one of another tenant.' },
      ),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Read one candidate revision',
        description:
          'The candidate with its decision, its `content` and its `html` preview (only this read ' +
          'carries `content` and `html`; the html is returned as stored and never rendered). States: ' +
          '`staged` → `accepted` | `rejected` | `superseded` (another version was created first).',
      }),
      ApiOkResponse({ type: RevisionDetailResponse }),
      ApiProblemResponses(
        {
          status: 400,
          description: '`validation_failed`: an identifier is not a positive integer.',
        },
        {
          status: 404,
          description: '`not_found`: unknown document or revision, or one of another tenant.',
        },
      ),
    ),
};
