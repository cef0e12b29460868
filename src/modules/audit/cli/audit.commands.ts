import { Command, Option, SubCommand } from 'nest-commander';
import {
  CommandGroup,
  JsonCommand,
  positiveInt,
  runCommand,
  UsageError,
} from '../../../cli/cli-output.js';
import { AuditService } from '../audit.service.js';

interface AuditListOptions {
  json?: boolean;
  tenant?: string;
  limit?: string;
}

@SubCommand({ name: 'list', description: "a tenant's audit trail, newest first" })
export class AuditListCommand extends JsonCommand {
  constructor(private readonly audit: AuditService) {
    super();
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(v: string): string {
    return v;
  }

  @Option({ flags: '--limit <n>', description: '1..10000, default 100' })
  parseLimit(v: string): string {
    return v;
  }

  async run(_: string[], o: AuditListOptions): Promise<void> {
    await runCommand(o, async () => {
      if (!o.tenant) throw new UsageError('--tenant is required');
      const limit = o.limit ? positiveInt('limit', o.limit) : 100;
      if (limit > 10_000) throw new UsageError('--limit must be at most 10000');
      return { data: await this.audit.list(positiveInt('tenant', o.tenant), limit) };
    });
  }
}

@Command({ name: 'audit', description: 'the audit trail', subCommands: [AuditListCommand] })
export class AuditCommand extends CommandGroup {}

export const AUDIT_COMMANDS = [AuditCommand, AuditListCommand];
