import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { OutboxModule } from '../webhooks/outbox/outbox.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsService } from './documents.service.js';
import { DocumentsRepository } from './documents.repository.js';

@Module({
  imports: [DatabaseModule, OutboxModule, ProjectsModule],
  controllers: [DocumentsController],
  providers: [DocumentsService, DocumentsRepository],
  exports: [DocumentsService],
})
export class DocumentsModule {}
