import { ApiExtraModels, ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../../common/pagination/page.response.js';
import { RevisionSummaryResponse } from '../../dto/revision.response.js';
import { REVISION_STATUSES, type RevisionStatus } from '../../revision-status.js';

/** An entry of the review queue: the candidate's summary and the tenant it belongs to. */
@ApiSchema({ name: 'PlatformReviewQueueItem' })
export class ReviewQueueItemResponse extends RevisionSummaryResponse {
  @ApiProperty({ example: 3, description: 'The tenant (company) whose candidate it is.' })
  tenant_id!: number;
}

@ApiSchema({ name: 'PlatformReviewQueue' })
export class ReviewQueueResponse extends CursorPageResponse {
  @ApiProperty({ type: [ReviewQueueItemResponse] })
  data!: ReviewQueueItemResponse[];
}

/** One operation of an RFC 6902 JSON Patch, as `diff` and `diff_to_current` list them. */
@ApiSchema({ name: 'PlatformJsonPatchOperation' })
export class JsonPatchOperationResponse {
  @ApiProperty({
    enum: ['add', 'remove', 'replace'],
    example: 'replace',
    description: 'A diff uses only these three of the RFC 6902 operations.',
  })
  op!: 'add' | 'remove' | 'replace';

  @ApiProperty({
    example: '/sections/0/body',
    description: 'RFC 6901 JSON Pointer (`~0` for `~`, `~1` for `/` in a key).',
  })
  path!: string;

  @ApiProperty({
    required: false,
    // any JSON value
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: {} },
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
    ],
    description:
      'The new value, any JSON value: present for `add` and `replace`, absent for `remove`.',
    example: 'All staff and contractors.',
  })
  value?: unknown;
}

/** A version of the document as the review shows it: its id and content. */
@ApiSchema({ name: 'PlatformReviewVersion' })
export class ReviewVersionResponse {
  @ApiProperty({ example: 41 })
  versionId!: number;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { title: 'Access policy' } })
  content!: Record<string, unknown>;
}

/** What the candidate proposes. */
@ApiSchema({ name: 'PlatformReviewCandidate' })
export class ReviewCandidateResponse {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { title: 'Access policy' } })
  content!: Record<string, unknown>;

  @ApiProperty({ type: 'string', nullable: true, example: '<h1>Access policy</h1>' })
  html!: string | null;
}

/** One candidate for review: what it was based on, what it proposes, and what it changes. */
@ApiSchema({ name: 'PlatformReview' })
@ApiExtraModels(JsonPatchOperationResponse)
export class ReviewResponse extends ReviewQueueItemResponse {
  @ApiProperty({ type: ReviewVersionResponse, description: 'The version it was staged against.' })
  base!: ReviewVersionResponse;

  @ApiProperty({ type: ReviewCandidateResponse })
  candidate!: ReviewCandidateResponse;

  @ApiProperty({
    type: [JsonPatchOperationResponse],
    description:
      "RFC 6902 JSON Patch from the base version's content to the candidate's: applied to " +
      '`base.content` it gives `candidate.content`. Arrays are compared index by index.',
  })
  diff!: JsonPatchOperationResponse[];

  @ApiProperty({ example: 42, description: "The document's current version now." })
  current_version_id!: number;

  @ApiProperty({
    type: 'array',
    items: { $ref: getSchemaPath(JsonPatchOperationResponse) },
    nullable: true,
    example: null,
    description:
      "Only for a `superseded` candidate (null otherwise): RFC 6902 JSON Patch from the current version's " +
      "content to the candidate's, i.e. what the candidate would still change if it were staged again on the current version.",
  })
  diff_to_current!: JsonPatchOperationResponse[] | null;
}

/** The answer to an accept or a reject. */
@ApiSchema({ name: 'PlatformReviewDecision' })
export class ReviewDecisionResponse {
  @ApiProperty({ example: 12 })
  revisionId!: number;

  @ApiProperty({ example: 3 })
  tenant_id!: number;

  @ApiProperty({ enum: REVISION_STATUSES, example: 'accepted' })
  status!: RevisionStatus;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 42,
    description: 'The version an accepted candidate became (null for a rejection).',
  })
  resulting_version_id!: number | null;
}
