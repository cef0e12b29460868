import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { OutboxModule } from '../webhooks/outbox/outbox.module.js';
import { LocksModule } from '../locks/locks.module.js';
import { IdempotencyStore } from './idempotency.store.js';
import { IdempotencyKeysRepository } from './repository/idempotency-keys.repository.js';
import { RevisionDecisionsRepository } from './repository/revision-decisions.repository.js';
import { RevisionsRepository } from './repository/revisions.repository.js';
import { ReviewQueueRepository } from './repository/review-queue.repository.js';
import { ReviewQueueService } from './review-queue.service.js';
import { RevisionDecisionService } from './revision-decision.service.js';
import { RevisionsController } from './revisions.controller.js';
import { RevisionsService } from './revisions.service.js';

@Module({
  imports: [DatabaseModule, AuditModule, DocumentsModule, OutboxModule, LocksModule],
  controllers: [RevisionsController],
  providers: [
    RevisionsService,
    RevisionDecisionService,
    IdempotencyStore,
    RevisionsRepository,
    RevisionDecisionsRepository,
    IdempotencyKeysRepository,
    ReviewQueueService,
    ReviewQueueRepository,
  ],
  exports: [RevisionsService, RevisionDecisionService, ReviewQueueService],
})
export class RevisionsModule {}
