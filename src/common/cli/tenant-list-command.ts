import { TenantDirectory } from '../access/tenant-directory.js';
import type { JsonText } from '../http/json-text.js';
import { allPages } from './all-pages.js';
import { ResultCommand } from './cli-output.js';
import { requiredPositiveInt } from './cli-options.js';

export interface TenantListOptions {
  json?: boolean;
  tenant?: string;
}

/**
 * `<group> list --tenant <id>`: every item of one tenant's list, read page after page through the
 * service that serves the API's pages; 404 `not_found` when there is no such tenant.
 */
export abstract class TenantListCommand extends ResultCommand<TenantListOptions> {
  protected abstract readonly tenants: TenantDirectory;

  /** One page of the tenant's list, as the API answers it. */
  protected abstract page(tenantId: number, cursor: string | undefined): Promise<JsonText<unknown>>;

  protected async result(o: TenantListOptions): Promise<object> {
    const tenantId = requiredPositiveInt('tenant', o.tenant);
    await this.tenants.assertExists(tenantId);
    return { data: await allPages((cursor) => this.page(tenantId, cursor)) };
  }
}
