import { allPages } from '../../../common/cli/all-pages.js';
import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup, ResultCommand } from '../../../common/cli/cli-output.js';
import { CliOptions, requiredPositiveInt, tenantOption } from '../../../common/cli/cli-options.js';
import { TenancyService } from '../../tenancy/tenancy.service.js';
import { WebhooksService } from '../webhooks.service.js';

interface WebhookListOptions {
  json?: boolean;
  tenant?: string;
}

@SubCommand({ name: 'list', description: "a tenant's webhooks, oldest first (never a secret)" })
@CliOptions(tenantOption())
export class WebhookListCommand extends ResultCommand<WebhookListOptions> {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly webhooks: WebhooksService,
  ) {
    super();
  }

  protected async result(o: WebhookListOptions): Promise<object> {
    const tenantId = requiredPositiveInt('tenant', o.tenant);
    await this.tenancy.view(tenantId);
    // the API's own page, which never carries a secret
    return {
      data: await allPages((cursor) => this.webhooks.list(tenantId, { limit: 100, cursor })),
    };
  }
}

@Command({ name: 'webhook', description: 'webhooks', subCommands: [WebhookListCommand] })
export class WebhookCommand extends CommandGroup {}

export const WEBHOOK_COMMANDS = [WebhookCommand, WebhookListCommand];
