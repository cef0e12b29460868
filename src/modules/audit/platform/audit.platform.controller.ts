import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TenantDirectory } from '../../../common/access/tenant-directory.js';
import { ApiProblemResponses } from '../../../common/http/api-problem-responses.js';
import { PlatformAuthorized } from '../../platform-keys/platform-access.js';
import { AuditService } from '../audit.service.js';
import { AuditListQuery } from './dto/audit.request.js';
import { AuditListResponse } from './dto/audit.response.js';

@ApiTags('audit')
@Controller('audit')
export class AuditPlatformController {
  constructor(
    private readonly audit: AuditService,
    private readonly tenants: TenantDirectory,
  ) {}

  @Get()
  @PlatformAuthorized('platform:audit')
  @ApiOperation({
    summary: 'The audit trail',
    description:
      "Every tenant's audit lines (or one tenant's: `tenantId`), newest first, `limit` a page; " +
      '`next_cursor` reads the next, older page. Filters, combined: `action`, `since` ' +
      '(inclusive), `until` (exclusive). The same lines as the CLI `audit list`.',
  })
  @ApiResponse({ status: 200, type: AuditListResponse })
  @ApiProblemResponses(
    {
      status: 400,
      description:
        '`validation_failed`: `limit` not an integer in 1..1000, `tenantId` not a positive integer, `action` empty or over 100 characters, `since` or `until` not a date or a date-time with its zone, or a cursor that is not of this list and these filters.',
    },
    { status: 404, description: '`not_found`: there is no tenant `tenantId`.' },
  )
  list(@Query() q: AuditListQuery): Promise<AuditListResponse> {
    const { limit, cursor, ...filter } = q;
    return this.audit.list(filter, limit, cursor, this.tenants);
  }
}
