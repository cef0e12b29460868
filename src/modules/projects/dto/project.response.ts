import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../common/pagination/page.response.js';
import { MAX_OFFSET } from '../../../common/http/params.js';

// Classes are named *Request / *Response; @ApiSchema keeps each published schema name (the
// OpenAPI contract clients generate types from) as it was.

export class ProjectResponse {
  @ApiProperty({ example: 3 })
  projectId!: number;

  @ApiProperty({ example: 'ISO 27001' })
  name!: string;

  @ApiProperty({ example: 'Certification project 2026' })
  description!: string;

  @ApiProperty({ enum: ['active', 'archived'], example: 'active' })
  status!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updated_at!: string;
}

@ApiSchema({ name: 'PageInfo' })
export class PageInfoResponse {
  @ApiProperty({ type: 'integer', minimum: 1, example: 50 })
  limit!: number;

  @ApiProperty({
    minimum: 0,
    maximum: MAX_OFFSET,
    type: 'integer',
    nullable: true,
    example: 0,
    description: 'The offset asked for; `null` when the page was addressed by `cursor`.',
  })
  offset!: number | null;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 1,
    description: 'Projects of the tenant in all pages (as of the same snapshot as `data`).',
  })
  total!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'Pass as `cursor` to read the page after this one (keyset paging: a deep page costs what ' +
      'the first one does, and projects created meanwhile neither repeat nor shift rows); `null` ' +
      'on the last page.',
  })
  next_cursor!: string | null;
}

export class ProjectListResponse {
  @ApiProperty({ type: [ProjectResponse] })
  data!: ProjectResponse[];

  @ApiProperty({ type: PageInfoResponse })
  page!: PageInfoResponse;
}

export class ProjectFileResponse {
  @ApiProperty({ example: 12 })
  fileId!: number;

  @ApiProperty({ example: 'audit.pdf' })
  name!: string;

  @ApiProperty({ example: 'application/pdf' })
  media_type!: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, example: 1234 })
  size_bytes!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  sha256!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updated_at!: string;
}

export class ProjectFileListResponse extends CursorPageResponse {
  @ApiProperty({
    type: [ProjectFileResponse],
    description: 'File metadata only: where the file is stored is never exposed.',
  })
  data!: ProjectFileResponse[];
}
