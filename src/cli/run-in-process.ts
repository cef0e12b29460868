import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { loadConfig } from '../common/config/load-config.js';
import { CliModule } from './cli.module.js';
import { connectCliDatabase } from './cli-database.js';
import { commanderOptions, reportFailure } from './command-host.js';
import { routeUsageErrorsToExceptions } from './commander-errors.js';

/**
 * Runs one command in this process: boots the CLI's modules on the database (starting the
 * embedded one when no service runs on it), runs the command, releases everything.
 */
export async function runInProcess(): Promise<void> {
  try {
    const config = loadConfig({ ...process.env, WORKERS_ENABLED: 'false', SEED_DEMO: 'false' });
    routeUsageErrorsToExceptions();
    const release = await connectCliDatabase(config);
    try {
      await CommandFactory.run(CliModule.register(config), commanderOptions());
    } finally {
      await release();
    }
  } catch (err) {
    reportFailure(err);
  } finally {
    // pooled database handles must not keep a finished command alive
    setTimeout(() => process.exit(), 50).unref();
  }
}
