import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';
import { REVISION_STATUSES, type RevisionStatus } from '../revision-status.js';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

const HASH_EXAMPLE = '3f0a1c9d2b7e4f6a8c5d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d';

/** The 201 body of staging. */
@ApiSchema({ name: 'StagedRevisionDto' })
export class StagedRevisionResponse {
  @ApiProperty({ example: 12 })
  revisionId!: number;

  @ApiProperty({ example: 7 })
  documentId!: number;

  @ApiProperty({ example: 41, description: 'The version the candidate was staged against.' })
  base_version_id!: number;

  @ApiProperty({ enum: REVISION_STATUSES, example: 'staged' })
  status!: RevisionStatus;

  @ApiProperty({ example: HASH_EXAMPLE, description: 'SHA-256 of the canonical JSON of content.' })
  content_hash!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'DMS-2024-0042' })
  source_reference!: string | null;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
}

/** A list entry: the staging body plus the decision, without content and html. */
@ApiSchema({ name: 'RevisionSummaryDto' })
export class RevisionSummaryResponse extends StagedRevisionResponse {
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description: 'When it was accepted, rejected or superseded.',
  })
  decided_at!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description:
      'The platform user who accepted or rejected it (null while staged or when superseded).',
  })
  decided_by!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'The version an accepted candidate became.',
  })
  resulting_version_id!: number | null;

  @ApiProperty({ type: 'string', nullable: true, example: null })
  decision_note!: string | null;
}

@ApiSchema({ name: 'RevisionListDto' })
export class RevisionListResponse extends CursorPageResponse {
  @ApiProperty({ type: [RevisionSummaryResponse] })
  data!: RevisionSummaryResponse[];
}

/** One candidate in full: the summary plus its content and html preview. */
@ApiSchema({ name: 'RevisionDetailDto' })
export class RevisionDetailResponse extends RevisionSummaryResponse {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { title: 'Access policy' } })
  content!: Record<string, unknown>;

  @ApiProperty({ type: 'string', nullable: true, example: '<h1>Access policy</h1>' })
  html!: string | null;
}

/** What `RevisionDecisionService` and the CLI answer. */
export interface RevisionDecisionResult {
  revisionId: number;
  status: RevisionStatus;
  resulting_version_id: number | null;
}
