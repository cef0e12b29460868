import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database/database.module.js';
import { HealthController } from './health.controller.js';
import { HealthRepository } from './health.repository.js';

@Module({
  imports: [DatabaseModule],
  controllers: [HealthController],
  providers: [HealthRepository],
})
export class HealthModule {}
