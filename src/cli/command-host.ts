import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../common/config/app-config.js';
import { ConfigError } from '../common/config/load-config.js';
import type { CommandClass, CommandRunner } from '../common/cli/cli-command.js';
import { printError, setExitCode, UsageError } from '../common/cli/cli-output.js';
import { CLI_COMMANDS, CLI_ROOTS, CliModule } from './cli.module.js';
import { commandTree } from './command-tree.js';
import { HelpShown } from './commander-errors.js';

/**
 * Boots the CLI's modules (the services the commands call), whether the command runs in its own
 * process (`logger: false`) or in the service (the service's logger: Nest sets the process-wide
 * logger from this option).
 */
export function bootCommands(
  config: AppConfig,
  logger: LoggerService | false,
): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(CliModule.register(config), {
    logger,
    // a module that fails to initialise must throw here, not exit the process before the
    // embedded database is released
    abortOnError: false,
  });
}

/** Parses `argv` (`[node, script, ...args]`) and runs the command it names. */
export async function runCommandLine(
  app: INestApplicationContext,
  argv: readonly string[],
): Promise<void> {
  const roots = app.get<readonly CommandClass[]>(CLI_ROOTS);
  await commandTree(app, roots).parseAsync([...argv]);
}

/**
 * Help without a database (none is configured here): the same tree over stand-ins that have each
 * command's options but run nothing; a command line that would run a command gets `refusal`.
 */
export async function showHelpWithout(argv: readonly string[], refusal: Error): Promise<void> {
  const standIn = (type: CommandClass): CommandRunner =>
    Object.assign(Object.create(type.prototype as object) as CommandRunner, {
      run: () => Promise.reject(refusal),
    });
  await commandTree(standIn, CLI_COMMANDS).parseAsync([...argv]);
}

/** A command that failed outside `runCommand`: usage (exit 2), configuration or internal (1). */
export function reportFailure(err: unknown): void {
  if (err instanceof HelpShown) return;
  if (err instanceof UsageError) {
    printError('usage', err.message, {});
    setExitCode(2);
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  printError(err instanceof ConfigError ? 'invalid_configuration' : 'internal_error', message, {});
  setExitCode(1);
}
