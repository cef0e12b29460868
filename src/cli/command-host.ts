import type { CommanderError } from 'commander';
import type { CommandFactoryRunOptions } from 'nest-commander/src/command-factory.interface.js';
import { ConfigError } from '../common/config/load-config.js';
import {
  printError,
  setExitCode,
  UsageError,
  writeErr,
  writeOut,
} from '../common/cli/cli-output.js';
import { HelpShown, throwCommanderError } from './commander-errors.js';

/** The one command of the package (`grc-integration-api <command>`). */
export const CLI_NAME = 'grc-integration-api';

/** How nest-commander is set up, whether the command runs in its own process or in the service. */
export function commanderOptions(): CommandFactoryRunOptions {
  return {
    logger: false,
    // a module that fails to initialise must throw here, not exit the process before the
    // embedded database is released
    abortOnError: false,
    cliName: CLI_NAME,
    errorHandler: (err) => throwCommanderError(err as CommanderError),
    outputConfiguration: {
      outputError: () => undefined,
      writeOut: (text) => writeOut(text),
      writeErr: (text) => writeErr(text),
    },
    serviceErrorHandler: (err: Error) => {
      throw err;
    },
  };
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
