import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { TenantDirectory } from '../../../common/access/tenant-directory.js';
import { PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { AuditService } from '../audit.service.js';
import { AuditListQuery } from './dto/audit.request.js';
import { AuditListResponse } from './dto/audit.response.js';
import { AuditPlatformDocs } from './audit.platform.openapi.js';

@ApiTags('audit')
@Controller('audit')
export class AuditPlatformController {
  constructor(
    private readonly audit: AuditService,
    private readonly tenants: TenantDirectory,
  ) {}

  @Get()
  @PlatformAuthorized('platform:audit')
  @AuditPlatformDocs.list()
  list(@Query() q: AuditListQuery): Promise<AuditListResponse> {
    const { limit, cursor, ...filter } = q;
    return this.audit.list(filter, limit, cursor, this.tenants);
  }
}
