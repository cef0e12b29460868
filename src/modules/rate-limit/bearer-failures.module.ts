import { Global, Module } from '@nestjs/common';
import { BearerFailuresService } from './bearer-failures.service.js';
import { RateLimitStoreModule } from './rate-limit-store.js';

/**
 * The per-address limit of failed bearer look-ups, for the authentication module. Global and
 * imported by RateLimitModule only: the CLI, which serves no HTTP, builds AuthModule without it.
 */
@Global()
@Module({
  imports: [RateLimitStoreModule],
  providers: [BearerFailuresService],
  exports: [BearerFailuresService],
})
export class BearerFailuresModule {}
