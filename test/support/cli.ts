import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { rememberSecretsIn } from './secrets.js';
import type { TestApp } from './app.js';

export interface CliResult {
  code: number;
  out: any;
  stdout: string;
  stderr: string;
}

const CLI = join(process.cwd(), 'dist/src/cli.js');

/**
 * Runs the built administration CLI (`npm test` builds first) with `--json` against the test
 * app's database. Secrets it prints are remembered; its stderr joins the app's logs for the leak
 * check at close.
 */
export function runCli(t: TestApp, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args, '--json'],
      {
        env: {
          ...process.env,
          ...t.database.env,
          WEBHOOK_SECRET_KEY: t.config.WEBHOOK_SECRET_KEY,
          LOG_LEVEL: 'warn',
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        let out: unknown = null;
        try {
          out = JSON.parse(stdout);
        } catch {
          // left null: the assertions show stdout
        }
        rememberSecretsIn(out);
        t.logs.push(stderr);
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          out,
          stdout,
          stderr,
        });
      },
    );
  });
}
