import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboxModule } from '../webhooks/outbox/outbox.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentService } from './documents.service.js';
import { DocumentVersion } from './entities/document-version.entity.js';
import { DocumentEntity } from './entities/document.entity.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([DocumentEntity, DocumentVersion]),
    OutboxModule,
    ProjectsModule,
  ],
  controllers: [DocumentsController],
  providers: [DocumentService],
  exports: [DocumentService],
})
export class DocumentsModule {}
