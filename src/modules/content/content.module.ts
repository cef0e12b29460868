import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { ContentImportService } from './content-import.service.js';
import { ContentService } from './content.service.js';

/**
 * The host platform's content (issue 36): upserts keyed by the platform's own ids, versions from
 * its editing and the NDJSON import. Its HTTP routes are the platform API's (`platform/`).
 */
@Module({
  imports: [DatabaseModule, TenancyModule, ProjectsModule, DocumentsModule],
  providers: [ContentService, ContentImportService],
  exports: [ContentService],
})
export class ContentModule {}
