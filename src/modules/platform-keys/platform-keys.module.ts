import { Module } from '@nestjs/common';
import { PlatformKeysRepository } from './platform-keys.repository.js';
import { PlatformKeysService } from './platform-keys.service.js';

/** The host platform's keys (made by the CLI, checked by the platform API's guard). */
@Module({
  providers: [PlatformKeysRepository, PlatformKeysService],
  exports: [PlatformKeysService],
})
export class PlatformKeysModule {}
