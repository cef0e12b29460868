import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EntitlementOverride } from './entities/entitlement-override.entity.js';
import { Tenant } from './entities/tenant.entity.js';
import { TenancyRepository } from './tenancy.repository.js';
import { TenancyService } from './tenancy.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Tenant, EntitlementOverride])],
  providers: [TenancyRepository, TenancyService],
  exports: [TenancyService],
})
export class TenancyModule {}
