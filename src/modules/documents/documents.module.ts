import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { OutboxModule } from '../webhooks/outbox/outbox.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentVersionWriter } from './document-version-writer.js';
import { DocumentsPlatformService } from './documents-platform.service.js';
import { DocumentsReadService } from './documents-read.service.js';
import { DocumentsService } from './documents.service.js';
import { DocumentsPlatformRepository } from './documents-platform.repository.js';
import { DocumentsReadRepository } from './documents-read.repository.js';
import { DocumentsRepository } from './documents.repository.js';

@Module({
  imports: [DatabaseModule, OutboxModule, ProjectsModule],
  controllers: [DocumentsController],
  providers: [
    DocumentsService,
    DocumentsReadService,
    DocumentsPlatformService,
    DocumentVersionWriter,
    DocumentsRepository,
    DocumentsReadRepository,
    DocumentsPlatformRepository,
  ],
  exports: [DocumentsService, DocumentsPlatformService],
})
export class DocumentsModule {}
