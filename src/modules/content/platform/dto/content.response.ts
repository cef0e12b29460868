import { ApiProperty } from '@nestjs/swagger';
import { EXTERNAL_ID_PATTERN } from '../../../../common/database/external-id.js';

const EXTERNAL_ID = {
  pattern: EXTERNAL_ID_PATTERN.source,
  minLength: 1,
  maxLength: 200,
  description: "The platform's own id of the row, unique per tenant and kind.",
};
const WHEN = { format: 'date-time', example: '2026-11-22T10:00:00.000Z' };

export class PlatformProjectResponse {
  @ApiProperty({ type: 'integer', example: 3 })
  projectId!: number;

  @ApiProperty({ type: 'integer', example: 7 })
  tenant_id!: number;

  @ApiProperty({ ...EXTERNAL_ID, example: 'prj-2026-iso' })
  external_id!: string;

  @ApiProperty({ example: 'ISO 27001' })
  name!: string;

  @ApiProperty({ example: 'Certification project 2026' })
  description!: string;

  @ApiProperty({ enum: ['active', 'archived'], example: 'active' })
  status!: string;

  @ApiProperty(WHEN)
  created_at!: string;

  @ApiProperty(WHEN)
  updated_at!: string;
}

export class PlatformDocumentResponse {
  @ApiProperty({ type: 'integer', example: 41 })
  documentId!: number;

  @ApiProperty({ type: 'integer', example: 3 })
  projectId!: number;

  @ApiProperty({ type: 'integer', example: 7 })
  tenant_id!: number;

  @ApiProperty({ ...EXTERNAL_ID, example: 'doc:access-policy' })
  external_id!: string;

  @ApiProperty({ example: 'Access policy' })
  title!: string;

  @ApiProperty({ enum: ['active', 'archived'], example: 'active' })
  status!: string;

  @ApiProperty({ type: 'integer', example: 118 })
  current_version_id!: number;

  @ApiProperty({
    pattern: '^[0-9a-f]{64}$',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: "The current version's content hash: what `If-Match` carries.",
  })
  content_hash!: string;

  @ApiProperty(WHEN)
  created_at!: string;

  @ApiProperty(WHEN)
  updated_at!: string;
}

export class PlatformVersionResponse {
  @ApiProperty({ type: 'integer', example: 119 })
  versionId!: number;

  @ApiProperty({ type: 'integer', example: 41 })
  documentId!: number;

  @ApiProperty({ type: 'integer', example: 7 })
  tenant_id!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 5 })
  number!: number;

  @ApiProperty({
    pattern: '^[0-9a-f]{64}$',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  content_hash!: string;

  @ApiProperty({ enum: ['platform'], example: 'platform' })
  source!: string;

  @ApiProperty(WHEN)
  created_at!: string;
}

export class PlatformFileResponse {
  @ApiProperty({ type: 'integer', example: 12 })
  fileId!: number;

  @ApiProperty({ type: 'integer', example: 3 })
  projectId!: number;

  @ApiProperty({ type: 'integer', example: 7 })
  tenant_id!: number;

  @ApiProperty({ ...EXTERNAL_ID, example: 'file-8812' })
  external_id!: string;

  @ApiProperty({ example: 'audit.pdf' })
  name!: string;

  @ApiProperty({ example: 'application/pdf' })
  media_type!: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 482113 })
  size_bytes!: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[0-9a-f]{64}$',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  sha256!: string | null;

  @ApiProperty(WHEN)
  created_at!: string;

  @ApiProperty(WHEN)
  updated_at!: string;
}

export class ImportCountsResponse {
  @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
  projects!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 10000 })
  documents!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 12 })
  files!: number;
}

export class ImportLineErrorResponse {
  @ApiProperty({ type: 'integer', minimum: 1, example: 17, description: 'Counted from 1.' })
  line!: number;

  @ApiProperty({
    enum: ['validation_failed', 'not_found', 'payload_too_large'],
    example: 'validation_failed',
    description:
      '`validation_failed` (not UTF-8, not a JSON object, unknown `kind`, a field missing, unknown or invalid, content over the content limits, a document created without content), `not_found` (no project of the tenant has `project_external_id`, before this line), `payload_too_large` (a line over `BODY_LIMIT`).',
  })
  code!: string;

  @ApiProperty({ example: 'title: must be a string of 1 to 500 characters, not only white space' })
  message!: string;
}

export class ImportReportResponse {
  @ApiProperty({ type: ImportCountsResponse })
  created!: ImportCountsResponse;

  @ApiProperty({
    type: ImportCountsResponse,
    description: 'Rows that existed and were written again (a re-run of a file updates only).',
  })
  updated!: ImportCountsResponse;

  @ApiProperty({
    type: [ImportLineErrorResponse],
    maxItems: 100,
    description: 'The refused lines, by line number; at most the first 100.',
  })
  errors!: ImportLineErrorResponse[];
}
