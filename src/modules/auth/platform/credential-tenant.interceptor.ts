import { Injectable } from '@nestjs/common';
import { MAX_ID } from '../../../common/http/params.js';
import { RouteTenantInterceptor } from '../../audit/route-tenant.interceptor.js';
import { CredentialAdminService } from '../credential-admin.service.js';
import { CLIENT_ID_PATTERN } from './client-id.pipe.js';

/** The tenant of the client or PAT a route's path names (`RouteTenantInterceptor`). */
@Injectable()
export class CredentialTenantInterceptor extends RouteTenantInterceptor {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected tenantOf({ clientId, patId }: Record<string, string>): Promise<number | undefined> {
    if (clientId !== undefined && CLIENT_ID_PATTERN.test(clientId)) {
      return this.admin.tenantOfClient(clientId);
    }
    if (patId !== undefined && /^\d{1,10}$/.test(patId) && Number(patId) <= MAX_ID) {
      return this.admin.tenantOfPat(Number(patId));
    }
    return Promise.resolve(undefined);
  }
}
