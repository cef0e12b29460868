import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { rememberSecretsIn } from './secrets.js';
import type { TestApp } from './app.js';

export interface CliResult {
  /** The exit code; -1 when the process did not exit by itself (killed, timed out). */
  code: number;
  out: any;
  stdout: string;
  stderr: string;
}

const CLI = join(process.cwd(), 'dist/src/cli.js');

function spawnCli(
  t: TestApp,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args, '--json'],
      { ...options, timeout: 60_000 },
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
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          out,
          stdout,
          stderr,
        });
      },
    );
  });
}

/**
 * Runs the built administration CLI (`npm test` builds first) with `--json`, answered by the test
 * app on its admin socket (`t.adminSocket()`), as an administrator's call beside a running service
 * is: this process parses nothing but the socket's path and relays the answer's stdout, stderr and
 * exit code. Its environment names only the socket and its folder is the socket's, which holds no
 * database: a call the service did not answer fails instead of running on its own. Secrets it
 * prints are remembered; its stderr joins the app's logs for the leak check at close.
 */
export async function runCli(t: TestApp, ...args: string[]): Promise<CliResult> {
  const socket = await t.adminSocket();
  return spawnCli(t, args, {
    env: { PATH: process.env.PATH ?? '', ADMIN_SOCKET: socket },
    cwd: dirname(socket),
  });
}

/**
 * The CLI on its own, without a service: it boots the commands in its own process on the test
 * app's database (seconds each). For what only that path does (its environment, its own start).
 */
export function runCliInProcess(t: TestApp, ...args: string[]): Promise<CliResult> {
  return spawnCli(t, args, {
    env: {
      ...process.env,
      ...t.database.env,
      WEBHOOK_SECRET_KEY: t.config.WEBHOOK_SECRET_KEY,
      LOG_LEVEL: 'warn',
      // never the socket of a service that happens to run here
      ADMIN_SOCKET: 'off',
    },
  });
}
