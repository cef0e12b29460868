import { connect } from 'node:net';

/** What a command printed and its exit code, as answered by the service. */
export interface AdminAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Nobody listens there: the caller runs the command itself. */
const NOT_SERVED = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK', 'EACCES']);

/**
 * Sends one command line to the service's admin socket. Null when no service listens there (the
 * socket file is missing or stale); once a service has the command, its answer is final.
 */
export function callAdminSocket(
  path: string,
  argv: readonly string[],
): Promise<AdminAnswer | null> {
  return new Promise((ok, fail) => {
    let connected = false;
    const chunks: Buffer[] = [];
    const socket = connect(path, () => {
      connected = true;
      socket.end(`${JSON.stringify({ argv, cwd: process.cwd() })}\n`);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected && NOT_SERVED.has(err.code ?? '')) ok(null);
      else fail(err);
    });
    socket.on('close', () => {
      if (!connected) return;
      try {
        ok(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminAnswer);
      } catch {
        fail(new Error('the service closed the admin connection without an answer'));
      }
    });
  });
}
