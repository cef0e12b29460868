import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup, ResultCommand, UsageError } from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  positiveInt,
  requiredNonBlankOption,
} from '../../../common/cli/cli-options.js';
import { ValidationFailedError } from '../../../common/http/app-error.js';
import { PlatformKeysService } from '../platform-keys.service.js';
import { PLATFORM_SCOPES } from '../platform-scopes.js';

interface PlatformKeyOptions {
  json?: boolean;
  name?: string;
  scopes?: string;
  key?: string;
}

@SubCommand({
  name: 'create',
  description: 'create a key for the host platform (platform API); it is shown once',
})
@CliOptions(
  { flags: '--name <name>', description: 'what uses it, e.g. admin-ui (1..200 chars)' },
  {
    flags: '--scopes <scopes>',
    description: `space-separated, of: ${PLATFORM_SCOPES.join(' ')}`,
  },
)
export class PlatformKeyCreateCommand extends ResultCommand<PlatformKeyOptions> {
  constructor(private readonly keys: PlatformKeysService) {
    super();
  }

  protected result(o: PlatformKeyOptions): Promise<object> {
    const name = requiredNonBlankOption('name', o.name);
    const text = requiredNonBlankOption('scopes', o.scopes);
    try {
      return this.keys.create(name, PlatformKeysService.parseScopes(text));
    } catch (err) {
      if (err instanceof ValidationFailedError) {
        throw new UsageError(err.errors.map((e) => `--${e.field}: ${e.message}`).join('; '));
      }
      throw err;
    }
  }
}

@SubCommand({ name: 'list', description: 'the platform keys (never a key)' })
export class PlatformKeyListCommand extends ResultCommand<PlatformKeyOptions> {
  constructor(private readonly keys: PlatformKeysService) {
    super();
  }

  protected result(): Promise<object> {
    return this.keys.list();
  }
}

@SubCommand({ name: 'revoke', description: 'revoke a platform key at once' })
@CliOptions({ flags: '--key <id>', description: 'the key_id' })
export class PlatformKeyRevokeCommand extends ResultCommand<PlatformKeyOptions> {
  constructor(private readonly keys: PlatformKeysService) {
    super();
  }

  protected result(o: PlatformKeyOptions): Promise<object> {
    return this.keys.revoke(positiveInt('key', requiredNonBlankOption('key', o.key)));
  }
}

@Command({
  name: 'platform-key',
  description: "the host platform's keys for the platform API",
  subCommands: [PlatformKeyCreateCommand, PlatformKeyListCommand, PlatformKeyRevokeCommand],
})
export class PlatformKeyCommand extends CommandGroup {}

export const PLATFORM_KEY_COMMANDS = [
  PlatformKeyCommand,
  PlatformKeyCreateCommand,
  PlatformKeyListCommand,
  PlatformKeyRevokeCommand,
];
