import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { OutboxModule } from '../webhooks/outbox/outbox.module.js';
import { TestingRepository } from './testing.repository.js';
import { TestingService } from './testing.service.js';

/** The testing kit's service-side commands (`testing reset`, `testing emit`). */
@Module({
  imports: [DatabaseModule, OutboxModule, TenancyModule],
  providers: [TestingRepository, TestingService],
  exports: [TestingService],
})
export class TestingModule {}
