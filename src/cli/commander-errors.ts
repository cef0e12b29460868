import type { CommanderError } from 'commander';
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
