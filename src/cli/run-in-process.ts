import 'reflect-metadata';
import { loadConfig } from '../common/config/load-config.js';
import { connectCliDatabase } from './cli-database.js';
import { missingDataDir } from './cli-data-dir.js';
import { bootCommands, reportFailure, runCommandLine, showHelpWithout } from './command-host.js';

/**
 * Runs one command in this process: boots the CLI's modules on the database (starting the
 * embedded one when no service runs on it), runs the command, releases everything.
 */
export async function runInProcess(): Promise<void> {
  try {
    const missing = missingDataDir(process.env, process.cwd());
    if (missing) {
      // --help still lists the commands; anything that would run one is refused
      await showHelpWithout(process.argv, missing);
      return;
    }
    const given = loadConfig({ ...process.env, WORKERS_ENABLED: 'false', SEED_DEMO: 'false' });
    const { config, release } = await connectCliDatabase(given);
    try {
      const app = await bootCommands(config, false);
      try {
        await runCommandLine(app, process.argv);
      } finally {
        await app.close();
      }
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
