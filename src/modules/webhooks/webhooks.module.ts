import { DeliveryRetention } from './delivery-retention.js';
import { Module } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { SecretBox } from '../../common/crypto/secret-box.js';
import { DatabaseModule } from '../../common/database/database.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { OutboxModule } from './outbox/outbox.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { DeliveriesController } from './deliveries.controller.js';
import { DeliveriesService } from './deliveries.service.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { DeliveriesRepository } from './repository/deliveries.repository.js';
import { DeliveryClaimsRepository } from './repository/delivery-claims.repository.js';
import { DeliveryHistoryRepository } from './repository/delivery-history.repository.js';
import { DeliveryResultsRepository } from './repository/delivery-results.repository.js';
import { DeliveryRetentionRepository } from './repository/delivery-retention.repository.js';
import { WebhooksRepository } from './repository/webhooks.repository.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

@Module({
  imports: [DatabaseModule, AuditModule, OutboxModule, MetricsModule],
  // in this order: the OpenAPI document lists the webhook routes before the deliveries'
  controllers: [WebhooksController, DeliveriesController],
  providers: [
    DeliveryRetention,
    {
      provide: SecretBox,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (!config.WEBHOOK_SECRET_KEY) throw new Error('WEBHOOK_SECRET_KEY is not set');
        return new SecretBox(config.WEBHOOK_SECRET_KEY);
      },
    },
    WebhooksService,
    DeliveriesService,
    DeliveryWorker,
    WebhooksRepository,
    DeliveriesRepository,
    DeliveryHistoryRepository,
    DeliveryClaimsRepository,
    DeliveryResultsRepository,
    DeliveryRetentionRepository,
  ],
  exports: [WebhooksService, DeliveryRetention],
})
export class WebhooksModule {}
