// The administration CLI. Only `node:` modules load before the admin socket is tried: when the
// service runs, it answers the command and this process never loads Nest (see bench/README.md).
import { callAdminSocket } from './cli/admin-client.js';
import { adminSocketPath } from './cli/admin-socket-path.js';

async function main(): Promise<void> {
  const path = adminSocketPath(process.env);
  let answer = null;
  try {
    answer = path ? await callAdminSocket(path, process.argv.slice(2)) : null;
  } catch (err) {
    const message = `the service on ${path} did not answer: ${err instanceof Error ? err.message : String(err)}`;
    const body = { error: { code: 'internal_error', message } };
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(body)}\n`);
    else process.stderr.write(`error (internal_error): ${message}\n`);
    process.exitCode = 1;
    return;
  }
  if (answer) {
    process.stdout.write(answer.stdout);
    process.stderr.write(answer.stderr);
    process.exitCode = answer.exitCode;
    return;
  }
  const { runInProcess } = await import('./cli/run-in-process.js');
  await runInProcess();
}

await main();
