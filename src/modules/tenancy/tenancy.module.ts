import { Module } from '@nestjs/common';
import { TenantDirectory } from '../../common/access/tenant-directory.js';
import { DatabaseModule } from '../../common/database/database.module.js';
import { TenancyRepository } from './tenancy.repository.js';
import { TenancyService } from './tenancy.service.js';

@Module({
  imports: [DatabaseModule],
  providers: [
    TenancyRepository,
    TenancyService,
    { provide: TenantDirectory, useExisting: TenancyService },
  ],
  exports: [TenancyService, TenantDirectory],
})
export class TenancyModule {}
