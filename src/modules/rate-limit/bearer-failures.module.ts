import { Module } from '@nestjs/common';
import { BearerFailuresService } from './bearer-failures.service.js';
import { RateLimitStoreModule } from './rate-limit-store.js';

/**
 * The per-address limit of failed bearer look-ups, for the authentication module (which imports
 * it). Its counter store is made on first use: the CLI, which serves no HTTP, looks nothing up.
 */
@Module({
  imports: [RateLimitStoreModule],
  providers: [BearerFailuresService],
  exports: [BearerFailuresService],
})
export class BearerFailuresModule {}
