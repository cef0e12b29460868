import { Command, Option, SubCommand } from '../../../common/cli/cli-command.js';
import {
  CommandGroup,
  RepeatedOption,
  ResultCommand,
  UsageError,
} from '../../../common/cli/cli-output.js';
import {
  clientOption,
  CliOptions,
  patOption,
  positiveInt,
  requiredNonBlankOption,
  tenantOption,
} from '../../../common/cli/cli-options.js';
import { ValidationFailedError } from '../../../common/http/app-error.js';
import {
  checkCredentialInput,
  CredentialAdminService,
  PAT_MAX_DAYS,
} from '../credential-admin.service.js';

interface CredentialOptions {
  json?: boolean;
  tenant?: string;
  name?: string;
  scopes?: string;
  client?: string;
  pat?: string;
  expiresInDays?: string;
}

const OPTION_OF_FIELD: Record<string, string> = {
  name: '--name',
  scopes: '--scopes',
  allowed_ips: '--allow-ip',
};

/** A malformed argument is a usage error (exit 2), checked before anything touches the database. */
function checkArguments(input: Parameters<typeof checkCredentialInput>[0]): void {
  try {
    checkCredentialInput(input);
  } catch (err) {
    if (err instanceof ValidationFailedError) {
      throw new UsageError(
        err.errors.map((e) => `${OPTION_OF_FIELD[e.field] ?? e.field}: ${e.message}`).join('; '),
      );
    }
    throw err;
  }
}

/** `--allow-ip` may be repeated; the values are kept in command-line order. */
@CliOptions(
  tenantOption('tenant id'),
  { flags: '--name <name>', description: 'a name for the administrator (1..200 chars)' },
  { flags: '--scopes <scopes>', description: 'space-separated scopes, e.g. "projects:read"' },
)
abstract class AllowlistCommand extends ResultCommand<CredentialOptions> {
  protected readonly allowIps = new RepeatedOption<string>();

  @Option({
    flags: '--allow-ip <cidr>',
    description: 'IPv4 or IPv6 CIDR allowed to use it (repeatable; needs auth.ip_allowlist)',
  })
  parseAllowIp(v: string): string {
    this.allowIps.add(v);
    return v;
  }

  protected input(o: CredentialOptions): {
    tenantId: number;
    name: string;
    scopes: string;
    allowedIps: string[];
  } {
    const tenantId = positiveInt('tenant', requiredNonBlankOption('tenant', o.tenant));
    const input = {
      name: requiredNonBlankOption('name', o.name),
      scopes: requiredNonBlankOption('scopes', o.scopes),
      allowedIps: [...this.allowIps.given()],
    };
    checkArguments(input);
    return { tenantId, ...input };
  }
}

@SubCommand({
  name: 'create',
  description: 'create an API client; its secret is shown once',
})
export class ClientCreateCommand extends AllowlistCommand {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected async result(o: CredentialOptions): Promise<object> {
    const { tenantId, ...input } = this.input(o);
    return this.admin.createClient(tenantId, input);
  }
}

@SubCommand({
  name: 'disable',
  description: 'disable an API client and revoke its tokens at once',
})
@CliOptions(clientOption('the client id (gci_…)'))
export class ClientDisableCommand extends ResultCommand<CredentialOptions> {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected async result(o: CredentialOptions): Promise<object> {
    const clientId = requiredNonBlankOption('client', o.client);
    if (!/^gci_[0-9A-Za-z]{49}$/.test(clientId)) {
      throw new UsageError('--client must be a client id (gci_…)');
    }
    // the CLI prints what it always has: the tenant is the platform API's audit concern
    const { client_id, enabled } = await this.admin.disableClient(clientId);
    return { client_id, enabled };
  }
}

@SubCommand({ name: 'list', description: "a tenant's API clients (never a secret)" })
@CliOptions(tenantOption('tenant id'))
export class ClientListCommand extends ResultCommand<CredentialOptions> {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected result(o: CredentialOptions): Promise<object> {
    return this.admin.listClients(
      positiveInt('tenant', requiredNonBlankOption('tenant', o.tenant)),
    );
  }
}

@Command({
  name: 'client',
  description: 'API clients (client-credentials grant)',
  subCommands: [ClientCreateCommand, ClientListCommand, ClientDisableCommand],
})
export class ClientCommand extends CommandGroup {}

@SubCommand({
  name: 'create',
  description: 'create a personal access token (needs auth.pat); shown once',
})
@CliOptions({
  flags: '--expires-in-days <days>',
  description: `days until it expires (1..${PAT_MAX_DAYS}, default 90)`,
})
export class PatCreateCommand extends AllowlistCommand {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected async result(o: CredentialOptions): Promise<object> {
    const { tenantId, ...input } = this.input(o);
    let expiresInDays: number | undefined;
    if (o.expiresInDays !== undefined) {
      expiresInDays = /^\d{1,3}$/.test(o.expiresInDays) ? Number(o.expiresInDays) : 0;
      if (expiresInDays < 1 || expiresInDays > PAT_MAX_DAYS) {
        throw new UsageError(`--expires-in-days must be an integer in 1..${PAT_MAX_DAYS}`);
      }
    }
    return this.admin.createPat(tenantId, { ...input, expiresInDays });
  }
}

@SubCommand({ name: 'revoke', description: 'revoke a personal access token at once' })
@CliOptions(patOption('the pat_id'))
export class PatRevokeCommand extends ResultCommand<CredentialOptions> {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected async result(o: CredentialOptions): Promise<object> {
    const patId = positiveInt('pat', requiredNonBlankOption('pat', o.pat));
    const { pat_id, revoked_at } = await this.admin.revokePat(patId);
    return { pat_id, revoked_at };
  }
}

@SubCommand({ name: 'list', description: "a tenant's personal access tokens (never a token)" })
@CliOptions(tenantOption('tenant id'))
export class PatListCommand extends ResultCommand<CredentialOptions> {
  constructor(private readonly admin: CredentialAdminService) {
    super();
  }

  protected result(o: CredentialOptions): Promise<object> {
    return this.admin.listPats(positiveInt('tenant', requiredNonBlankOption('tenant', o.tenant)));
  }
}

@Command({
  name: 'pat',
  description: 'personal access tokens',
  subCommands: [PatCreateCommand, PatListCommand, PatRevokeCommand],
})
export class PatCommand extends CommandGroup {}

export const CREDENTIAL_COMMANDS = [
  ClientCommand,
  ClientCreateCommand,
  ClientListCommand,
  ClientDisableCommand,
  PatCommand,
  PatCreateCommand,
  PatListCommand,
  PatRevokeCommand,
];
