import { ApiProperty } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';

const HASH = '3f0a6f9b1a4a1b3f7c4b3e2e9d4c1a0b5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b';
const TIME = '2026-11-22T10:00:00.000Z';

export class DocumentSummaryResponse {
  @ApiProperty({ example: 41 })
  documentId!: number;

  @ApiProperty({ example: 3 })
  projectId!: number;

  @ApiProperty({ example: 'Access policy' })
  title!: string;

  @ApiProperty({ enum: ['active', 'archived'], example: 'active' })
  status!: string;

  @ApiProperty({ type: Number, nullable: true, example: 118 })
  current_version_id!: number | null;

  @ApiProperty({ format: 'date-time', example: TIME })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: TIME })
  updated_at!: string;
}

export class DocumentListResponse extends CursorPageResponse {
  @ApiProperty({ type: [DocumentSummaryResponse] })
  data!: DocumentSummaryResponse[];
}

export class VersionIndexEntryResponse {
  @ApiProperty({ example: 118 })
  versionId!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 2 })
  number!: number;

  @ApiProperty({
    example: HASH,
    description: 'Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the content.',
  })
  content_hash!: string;

  @ApiProperty({ format: 'date-time', example: TIME })
  created_at!: string;

  @ApiProperty({ enum: ['platform', 'external_revision'], example: 'platform' })
  source!: string;
}

export class DocumentResponse extends DocumentSummaryResponse {
  @ApiProperty({
    type: [VersionIndexEntryResponse],
    description:
      'The version index, ascending by number: every version of a document with up to 1,000 ' +
      'versions; beyond that, the first 1,000, and `versions_next_cursor` reads the rest ' +
      'through GET /documents/{documentId}/versions.',
  })
  versions!: VersionIndexEntryResponse[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      '`null` when `versions` is the whole index; otherwise the `cursor` for ' +
      'GET /documents/{documentId}/versions that continues it.',
  })
  versions_next_cursor!: string | null;
}

export class VersionListResponse extends CursorPageResponse {
  @ApiProperty({ type: [VersionIndexEntryResponse] })
  data!: VersionIndexEntryResponse[];
}

export class VersionResponse {
  @ApiProperty({ example: 118 })
  versionId!: number;

  @ApiProperty({ example: 41 })
  documentId!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 2 })
  number!: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { sections: [{ heading: 'Scope', body: 'All production systems.' }] },
  })
  content!: Record<string, unknown>;

  @ApiProperty({
    example: HASH,
    description:
      'Lowercase hex SHA-256 of the RFC 8785 canonical JSON of `content`; quoted, it is the `ETag`.',
  })
  content_hash!: string;

  @ApiProperty({ format: 'date-time', example: TIME })
  created_at!: string;
}
