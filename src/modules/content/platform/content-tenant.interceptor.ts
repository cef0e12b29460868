import { Injectable } from '@nestjs/common';
import { MAX_ID } from '../../../common/http/params.js';
import { RouteTenantInterceptor } from '../../audit/route-tenant.interceptor.js';
import { ContentService } from '../content.service.js';

const isId = (value: string | undefined): value is string =>
  value !== undefined && /^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_ID;

/** The tenant of the project or document a route's path names (`RouteTenantInterceptor`). */
@Injectable()
export class ContentTenantInterceptor extends RouteTenantInterceptor {
  constructor(private readonly content: ContentService) {
    super();
  }

  protected tenantOf({
    projectId,
    documentId,
  }: Record<string, string>): Promise<number | undefined> {
    if (isId(projectId)) return this.content.tenantOfProject(Number(projectId));
    if (isId(documentId)) return this.content.tenantOfDocument(Number(documentId));
    return Promise.resolve(undefined);
  }
}
