import type { INestApplicationContext } from '@nestjs/common';
import { Command, type CommanderError, Option } from 'commander';
import {
  type CommandClass,
  commandMeta,
  type CommandRunner,
  optionsOf,
} from '../common/cli/cli-command.js';
import { writeErr, writeOut } from '../common/cli/cli-output.js';
import { throwCommanderError } from './commander-errors.js';

/** The one command of the package (`grc-integration-api <command>`). */
export const CLI_NAME = 'grc-integration-api';

/**
 * Every command throws instead of exiting, so the CLI answers usage errors with exit code 2 and a
 * JSON error after releasing its database; commander's own error text would be a second message.
 */
function configure(command: Command): Command {
  return command
    .exitOverride((err: CommanderError) => throwCommanderError(err))
    .configureOutput({
      outputError: () => undefined,
      writeOut: (text) => writeOut(text),
      writeErr: (text) => writeErr(text),
    });
}

/** The command object of a class: the Nest provider, or a stand-in that only shows help. */
export type CommandResolver = (type: CommandClass) => CommandRunner;

function build(resolve: CommandResolver, type: CommandClass): Command {
  const meta = commandMeta(type);
  const instance = resolve(type);
  const command = configure(new Command(meta.name)).description(meta.description ?? '');
  instance.setCommand(command);
  for (const o of optionsOf(instance)) {
    command.addOption(
      new Option(o.flags, o.description)
        .default(undefined)
        .preset(undefined)
        .argParser((value: string, previous: unknown) => o.parse(value, previous)),
    );
  }
  command.action(() => instance.run(command.args, command.opts()));
  for (const sub of meta.subCommands ?? []) command.addCommand(build(resolve, sub));
  return command;
}

/**
 * A fresh commander tree of `roots` over the commands the application context holds: one per
 * invocation, as commander keeps parsed option values between parses.
 */
export function commandTree(
  app: INestApplicationContext | CommandResolver,
  roots: readonly CommandClass[],
): Command {
  const resolve: CommandResolver =
    typeof app === 'function' ? app : (type) => app.get<CommandRunner>(type);
  const program = configure(new Command(CLI_NAME));
  for (const root of roots) program.addCommand(build(resolve, root));
  return program;
}
