import { TenantDirectory } from '../../../common/access/tenant-directory.js';
import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup } from '../../../common/cli/cli-output.js';
import { CliOptions, tenantOption } from '../../../common/cli/cli-options.js';
import { TenantListCommand } from '../../../common/cli/tenant-list-command.js';
import { WebhooksService } from '../webhooks.service.js';

@SubCommand({ name: 'list', description: "a tenant's webhooks, oldest first (never a secret)" })
@CliOptions(tenantOption())
export class WebhookListCommand extends TenantListCommand {
  constructor(
    protected readonly tenants: TenantDirectory,
    private readonly webhooks: WebhooksService,
  ) {
    super();
  }

  // the API's own page, which never carries a secret
  protected page(tenantId: number, cursor: string | undefined) {
    return this.webhooks.list(tenantId, { limit: 100, cursor });
  }
}

@Command({ name: 'webhook', description: 'webhooks', subCommands: [WebhookListCommand] })
export class WebhookCommand extends CommandGroup {}

export const WEBHOOK_COMMANDS = [WebhookCommand, WebhookListCommand];
