import { Command, CommanderError } from 'commander';
import { UsageError } from '../common/cli/cli-output.js';

/** Help or version was asked for and printed: not an error. */
export class HelpShown extends Error {}

function toError(err: CommanderError): Error {
  if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(err.code)) {
    return new HelpShown(err.message);
  }
  return new UsageError(err.message.replace(/^error: /, ''));
}

export function throwCommanderError(err: CommanderError): never {
  throw toError(err);
}

/**
 * nest-commander sets commander's exit override on the root command only, after the
 * subcommands exist, so a bad option of `tenant create` would call process.exit(1) itself.
 * Every command added from here on throws instead, so the CLI answers usage errors with exit
 * code 2 and a JSON error, after releasing its database.
 */
export function routeUsageErrorsToExceptions(): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- re-bound with .call below
  const addCommand = Command.prototype.addCommand;
  Command.prototype.addCommand = function patched(this: Command, cmd, opts) {
    // the CLI prints its own JSON error; commander's text would be a second message
    cmd.exitOverride(throwCommanderError).configureOutput({ outputError: () => undefined });
    return addCommand.call(this, cmd, opts);
  };
}
