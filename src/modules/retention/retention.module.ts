import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { RetentionSweeper } from './retention-sweeper.js';

/** Bounded tables: the sweeper that applies each owning module's retention rule. */
@Module({
  imports: [AuthModule, WebhooksModule, MetricsModule],
  providers: [RetentionSweeper],
  exports: [RetentionSweeper],
})
export class RetentionModule {}
