import { chmod, unlink } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';
import { type AppConfig } from '../common/config/app-config.js';
import { configWith } from '../common/config/load-config.js';
import type { AdminAnswer } from './admin-client.js';
import { callAdminSocket } from './admin-client.js';
import { type CliSink, withCliSink } from '../common/cli/cli-output.js';
import { bootCommands, reportFailure, runCommandLine } from './command-host.js';
import { CLI_NAME } from './command-tree.js';

/** A command line is short; anything longer is not one. */
const MAX_REQUEST_BYTES = 1024 * 1024;

export interface AdminServer {
  close(): Promise<void>;
}

interface AdminRequest {
  argv: string[];
  cwd: string;
}

function parseRequest(text: string): AdminRequest | null {
  try {
    const { argv, cwd } = JSON.parse(text) as { argv?: unknown; cwd?: unknown };
    return Array.isArray(argv) &&
      argv.every((a) => typeof a === 'string') &&
      typeof cwd === 'string' &&
      isAbsolute(cwd)
      ? { argv, cwd }
      : null;
  } catch {
    return null;
  }
}

/**
 * Answers administration commands on a Unix socket (owner-only) with the CLI's modules booted once
 * in this process, so a CLI call costs a connection instead of a Nest boot. Commands run one at a
 * time: a command object holds its parsed options while it runs.
 */
export async function startAdminServer(
  path: string,
  config: AppConfig,
  log: Logger,
  serviceLogger: LoggerService,
): Promise<AdminServer> {
  if ((await callAdminSocket(path, ['--help']).catch(() => null)) !== null) {
    throw new Error(`another service answers administration commands on ${path}`);
  }
  await unlink(path).catch(() => undefined);

  // the service's own settings and database (as given, not re-read from the environment), without
  // a second worker or demo seed
  const cliConfig = configWith(config, { WORKERS_ENABLED: false, SEED_DEMO: false });
  let context: Promise<INestApplicationContext> | undefined;
  const boot = (): Promise<INestApplicationContext> =>
    // Nest sets the process-wide logger from this option: `false` (the CLI process's) would
    // silence every Nest Logger of the service from here on (unhandled errors included)
    (context ??= bootCommands(cliConfig, serviceLogger));

  const run = async ({ argv, cwd }: AdminRequest): Promise<AdminAnswer> => {
    const sink: CliSink = {
      argv: [process.execPath, CLI_NAME, ...argv],
      cwd,
      stdout: '',
      stderr: '',
      exitCode: 0,
    };
    await withCliSink(sink, async () => {
      try {
        await runCommandLine(await boot(), sink.argv);
      } catch (err) {
        reportFailure(err);
      }
    });
    return { stdout: sink.stdout, stderr: sink.stderr, exitCode: sink.exitCode };
  };

  let queue: Promise<unknown> = Promise.resolve();
  const connections = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) socket.destroy();
      else chunks.push(c);
    });
    socket.on('end', () => {
      const request = parseRequest(Buffer.concat(chunks).toString('utf8'));
      if (!request) {
        socket.end(JSON.stringify({ stdout: '', stderr: 'malformed request\n', exitCode: 2 }));
        return;
      }
      const answered = queue.then(() => run(request));
      queue = answered.catch(() => undefined);
      answered.then(
        (answer) => socket.end(JSON.stringify(answer)),
        (err: unknown) => {
          log.error({ err }, 'administration command failed');
          socket.destroy();
        },
      );
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    // owner-only from its creation (the bind is synchronous outside a cluster); the chmod below
    // stays for where it is not
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', fail);
        ok();
      });
    } finally {
      process.umask(umask);
    }
  });
  await chmod(path, 0o600);
  // booted now, in the background, so the first command does not pay for it
  setImmediate(() => {
    boot().catch((err: unknown) => log.error({ err }, 'administration commands unavailable'));
  });

  return {
    close: async () => {
      await new Promise<void>((ok) => {
        server.close(() => ok());
        for (const s of connections) s.destroy();
      });
      await unlink(path).catch(() => undefined);
      if (context) await (await context).close();
    },
  };
}
