import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, Matches } from 'class-validator';
import { EXTERNAL_ID_PATTERN } from '../../../../common/database/external-id.js';
import {
  PutPlatformDocumentRequest,
  PutPlatformFileRequest,
  PutPlatformProjectRequest,
} from './content.request.js';

export const IMPORT_KINDS = ['project', 'document', 'file'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

const EXTERNAL_ID_RULE = {
  message: 'must be 1 to 200 characters of A-Z, a-z, 0-9, ".", "_", ":" and "-"',
};

/** One line of an NDJSON import: `kind` says which of the others it is. */
export class ImportProjectLine extends PutPlatformProjectRequest {
  @ApiProperty({ enum: ['project'] })
  @IsIn(['project'])
  kind!: 'project';

  @ApiProperty({ pattern: EXTERNAL_ID_PATTERN.source, example: 'prj-2026-iso' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @Matches(EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE)
  external_id!: string;
}

export class ImportDocumentLine extends PutPlatformDocumentRequest {
  @ApiProperty({ enum: ['document'] })
  @IsIn(['document'])
  kind!: 'document';

  @ApiProperty({ pattern: EXTERNAL_ID_PATTERN.source, example: 'prj-2026-iso' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @Matches(EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE)
  project_external_id!: string;

  @ApiProperty({ pattern: EXTERNAL_ID_PATTERN.source, example: 'doc:access-policy' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @Matches(EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE)
  external_id!: string;
}

export class ImportFileLine extends PutPlatformFileRequest {
  @ApiProperty({ enum: ['file'] })
  @IsIn(['file'])
  kind!: 'file';

  @ApiProperty({ pattern: EXTERNAL_ID_PATTERN.source, example: 'prj-2026-iso' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @Matches(EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE)
  project_external_id!: string;

  @ApiProperty({ pattern: EXTERNAL_ID_PATTERN.source, example: 'file-8812' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @Matches(EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE)
  external_id!: string;
}

export const IMPORT_LINE_CLASSES = {
  project: ImportProjectLine,
  document: ImportDocumentLine,
  file: ImportFileLine,
} as const;

export type ImportLine = ImportProjectLine | ImportDocumentLine | ImportFileLine;
