import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { OutboxModule } from '../webhooks/outbox/outbox.module.js';
import { LockSweeper } from './lock-sweeper.js';
import { LocksController } from './locks.controller.js';
import { LocksRepository } from './locks.repository.js';
import { LocksService } from './locks.service.js';

@Module({
  imports: [DatabaseModule, AuditModule, DocumentsModule, OutboxModule],
  controllers: [LocksController],
  providers: [LocksService, LocksRepository, LockSweeper],
  exports: [LocksService],
})
export class LocksModule {}
