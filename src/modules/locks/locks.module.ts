import { Module } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module.js';
import { EventsModule } from '../events/events.module.js';
import { LockSweeper } from './lock-sweeper.js';
import { LocksController } from './locks.controller.js';
import { LocksService } from './locks.service.js';

@Module({
  imports: [DocumentsModule, EventsModule],
  controllers: [LocksController],
  providers: [LocksService, LockSweeper],
  exports: [LocksService],
})
export class LocksModule {}
