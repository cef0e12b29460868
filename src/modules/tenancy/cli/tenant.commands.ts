import { Command, Option, SubCommand } from '../../../common/cli/cli-command.js';
import {
  CommandGroup,
  RepeatedOption,
  ResultCommand,
  UsageError,
} from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  requiredPositiveInt,
  requiredText,
  tenantOption,
} from '../../../common/cli/cli-options.js';
import { type Entitlement, isEntitlement } from '../../../common/access/entitlements.js';
import { isPlan, type Plan, PLANS } from '../plans.js';
import { TenancyService } from '../tenancy.service.js';

interface TenantOptions {
  json?: boolean;
  name?: string;
  plan?: string;
  tenant?: string;
}

function plan(value: string | undefined): Plan {
  if (!value || !isPlan(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return value;
}

@SubCommand({ name: 'create', description: 'create a tenant on a plan' })
@CliOptions(
  { flags: '--name <name>', description: 'tenant (company) name' },
  { flags: '--plan <plan>', description: PLANS.join(' | ') },
)
export class TenantCreateCommand extends ResultCommand<TenantOptions> {
  constructor(private readonly tenancy: TenancyService) {
    super();
  }

  protected async result(o: TenantOptions): Promise<object> {
    const name = requiredText('name', o.name, 200);
    const t = await this.tenancy.create(name, plan(o.plan));
    return { tenant_id: t.tenant_id, name: t.name, plan: t.plan };
  }
}

@SubCommand({ name: 'set-plan', description: "change a tenant's plan (applies at once)" })
@CliOptions(tenantOption(), { flags: '--plan <plan>', description: PLANS.join(' | ') })
export class TenantSetPlanCommand extends ResultCommand<TenantOptions> {
  constructor(private readonly tenancy: TenancyService) {
    super();
  }

  protected result(o: TenantOptions): Promise<object> {
    return this.tenancy.setPlan(requiredPositiveInt('tenant', o.tenant), plan(o.plan));
  }
}

@SubCommand({
  name: 'entitlements',
  description: 'show, add, remove or reset entitlements (the last --add/--remove of a name wins)',
})
@CliOptions(tenantOption())
export class TenantEntitlementsCommand extends ResultCommand<TenantOptions> {
  constructor(private readonly tenancy: TenancyService) {
    super();
  }

  /** In command-line order across --add, --remove and --reset, so the last one of a name wins. */
  private readonly changes = new RepeatedOption<{ entitlement: string; granted: boolean | null }>();

  @Option({ flags: '--add <entitlement>', description: 'grant beyond the plan (repeatable)' })
  parseAdd(v: string): string {
    this.changes.add({ entitlement: v, granted: true });
    return v;
  }

  @Option({ flags: '--remove <entitlement>', description: 'withhold from the plan (repeatable)' })
  parseRemove(v: string): string {
    this.changes.add({ entitlement: v, granted: false });
    return v;
  }

  @Option({
    flags: '--reset <entitlement>',
    description: "back to the plan's default (repeatable)",
  })
  parseReset(v: string): string {
    this.changes.add({ entitlement: v, granted: null });
    return v;
  }

  protected async result(o: TenantOptions): Promise<object> {
    const id = requiredPositiveInt('tenant', o.tenant);
    const last = new Map<Entitlement, boolean | null>();
    for (const c of this.changes.given()) {
      if (!isEntitlement(c.entitlement))
        throw new UsageError(`unknown entitlement ${c.entitlement}`);
      last.set(c.entitlement, c.granted);
    }
    const changes = [...last].map(([entitlement, granted]) => ({ entitlement, granted }));
    return changes.length ? this.tenancy.changeEntitlements(id, changes) : this.tenancy.view(id);
  }
}

@SubCommand({ name: 'list', description: 'every tenant with its plan, oldest first' })
export class TenantListCommand extends ResultCommand<TenantOptions> {
  constructor(private readonly tenancy: TenancyService) {
    super();
  }

  protected result(): Promise<object> {
    return this.tenancy.list();
  }
}

@Command({
  name: 'tenant',
  description: 'tenants, plans and entitlements',
  subCommands: [
    TenantCreateCommand,
    TenantListCommand,
    TenantSetPlanCommand,
    TenantEntitlementsCommand,
  ],
})
export class TenantCommand extends CommandGroup {}

export const TENANT_COMMANDS = [
  TenantCommand,
  TenantCreateCommand,
  TenantListCommand,
  TenantSetPlanCommand,
  TenantEntitlementsCommand,
];
