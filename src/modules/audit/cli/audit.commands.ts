import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup, ResultCommand, UsageError } from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  optionalPositiveInt,
  positiveInt,
  requiredOption,
  tenantOption,
} from '../../../common/cli/cli-options.js';
import { AppConfig } from '../../../common/config/app-config.js';
import { TenantDirectory } from '../../../common/access/tenant-directory.js';
import { AuditService } from '../audit.service.js';

interface AuditListOptions {
  json?: boolean;
  tenant?: string;
  limit?: string;
}

@SubCommand({ name: 'list', description: "a tenant's audit trail, newest first" })
@CliOptions(tenantOption(), { flags: '--limit <n>', description: '1..10000, default 100' })
export class AuditListCommand extends ResultCommand<AuditListOptions> {
  constructor(
    private readonly audit: AuditService,
    private readonly tenants: TenantDirectory,
  ) {
    super();
  }

  protected async result(o: AuditListOptions): Promise<object> {
    const tenant = requiredOption('tenant', o.tenant);
    const limit = optionalPositiveInt('limit', o.limit) ?? 100;
    if (limit > 10_000) throw new UsageError('--limit must be at most 10000');
    const page = await this.audit.list(
      { tenantId: positiveInt('tenant', tenant) },
      limit,
      undefined,
      this.tenants,
    );
    return { data: page.data };
  }
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const AGE = /^(\d{1,6})(d|h)$/;

/**
 * The bound of `audit prune --before`: an ISO date (`2025-01-31`, midnight UTC) or date-time with
 * its zone, or an age (`400d`, `36h`) before `now`. Refused unless at least a day before `now`.
 */
export function parsePruneBound(text: string, now: Date): Date {
  let bound: Date;
  const age = AGE.exec(text);
  if (age) {
    bound = new Date(now.getTime() - Number(age[1]) * (age[2] === 'd' ? DAY_MS : DAY_MS / 24));
  } else if (ISO_DATE.test(text)) {
    bound = new Date(text);
    // Date rolls 2025-02-30 over to March 2: refuse a day that does not exist
    if (
      Number.isNaN(bound.getTime()) ||
      (text.length === 10 && bound.toISOString().slice(0, 10) !== text)
    ) {
      throw new UsageError(`--before ${text} is not a valid date`);
    }
  } else {
    throw new UsageError(
      '--before must be an ISO date (2025-01-31, 2025-01-31T12:00:00Z) or an age such as 400d or 36h',
    );
  }
  if (bound.getTime() > now.getTime() - DAY_MS) {
    throw new UsageError('--before must be at least 1 day in the past');
  }
  return bound;
}

interface AuditPruneOptions {
  json?: boolean;
  before?: string;
  tenant?: string;
}

@SubCommand({
  name: 'prune',
  description: 'delete audit entries older than a bound (the only way audit entries are deleted)',
})
@CliOptions(
  { flags: '--before <when>', description: 'ISO date or age (400d, 36h); at least 1 day ago' },
  tenantOption("only this tenant's entries"),
)
export class AuditPruneCommand extends ResultCommand<AuditPruneOptions> {
  constructor(
    private readonly audit: AuditService,
    private readonly tenants: TenantDirectory,
    private readonly config: AppConfig,
  ) {
    super();
  }

  protected async result(o: AuditPruneOptions): Promise<object> {
    const before = parsePruneBound(requiredOption('before', o.before), new Date());
    const tenantId = optionalPositiveInt('tenant', o.tenant) ?? null;
    if (tenantId !== null) await this.tenants.assertExists(tenantId);
    const deleted = await this.audit.prune(before, tenantId, this.config.RETENTION_BATCH_SIZE);
    return { deleted, before: before.toISOString() };
  }
}

@Command({
  name: 'audit',
  description: 'the audit trail',
  subCommands: [AuditListCommand, AuditPruneCommand],
})
export class AuditCommand extends CommandGroup {}

export const AUDIT_COMMANDS = [AuditCommand, AuditListCommand, AuditPruneCommand];
