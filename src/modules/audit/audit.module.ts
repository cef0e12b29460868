import { Global, Module } from '@nestjs/common';
import { AuditInterceptor } from './audit.interceptor.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';

/** Global so any context can record decisions made outside HTTP (CLI, platform calls). */
@Global()
@Module({
  imports: [TenancyModule],
  providers: [AuditRepository, AuditService, AuditInterceptor],
  exports: [AuditService, AuditInterceptor],
})
export class AuditModule {}
