import 'reflect-metadata';
import type { CommanderError } from 'commander';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli/cli.module.js';
import { connectCliDatabase } from './cli/cli-database.js';
import { printError, UsageError } from './cli/cli-output.js';
import {
  HelpShown,
  routeUsageErrorsToExceptions,
  throwCommanderError,
} from './cli/commander-errors.js';
import { ConfigError, loadConfig } from './common/config/app-config.js';

const json = process.argv.includes('--json');

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, WORKERS_ENABLED: 'false', SEED_DEMO: 'false' });
  routeUsageErrorsToExceptions();
  const release = await connectCliDatabase(config);
  try {
    await CommandFactory.run(CliModule.register(config), {
      logger: false,
      // a module that fails to initialise must throw here, not exit the process before the
      // embedded database is released
      abortOnError: false,
      cliName: 'npm run cli --',
      errorHandler: (err) => throwCommanderError(err as CommanderError),
      outputConfiguration: { outputError: () => undefined },
      serviceErrorHandler: (err: Error) => {
        throw err;
      },
    });
  } finally {
    await release();
  }
}

main()
  .catch((err: unknown) => {
    if (err instanceof HelpShown) return;
    if (err instanceof UsageError) {
      printError('usage', err.message, { json });
      process.exitCode = 2;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    printError(err instanceof ConfigError ? 'invalid_configuration' : 'internal_error', message, {
      json,
    });
    process.exitCode = 1;
  })
  .finally(() => {
    // pooled database handles must not keep a finished command alive
    setTimeout(() => process.exit(), 50).unref();
  });
