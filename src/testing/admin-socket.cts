import { connect } from 'node:net';
import type { CliResult } from './kit-types.cjs';
import { ALL_PLATFORM_SCOPES } from './scopes.cjs';
import { parseJsonObject } from './json-object.cjs';

/** Sends one command line to the service's admin socket (the protocol of `grc-integration-api`). */
export function adminCall(
  socketPath: string,
  argv: readonly string[],
): Promise<Omit<CliResult, 'json'>> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    const socket = connect(socketPath, () => {
      socket.end(`${JSON.stringify({ argv, cwd: process.cwd() })}\n`);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', fail);
    socket.on('close', () => {
      try {
        ok(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<CliResult, 'json'>);
      } catch {
        fail(new Error('the service closed the admin connection without an answer'));
      }
    });
  });
}

/** A command's JSON answer, or an error naming the command and what it printed. */
export function answerOf(what: string, result: CliResult): Record<string, unknown> {
  if (result.exitCode !== 0 || !result.json || 'error' in result.json) {
    throw new Error(`${what} failed (exit ${result.exitCode}): ${result.stdout}${result.stderr}`);
  }
  return result.json;
}

/**
 * Makes the kit's platform key (every platform scope) through the admin socket, as an operator
 * makes one with `platform-key create`.
 */
export async function createKitKey(socketPath: string): Promise<{ key: string; keyId: number }> {
  const argv = [
    'platform-key',
    'create',
    '--name',
    'testing-kit',
    '--scopes',
    ALL_PLATFORM_SCOPES.join(' '),
    '--json',
  ];
  const answer = await adminCall(socketPath, argv);
  const made = answerOf('platform-key create', { ...answer, json: parseJsonObject(answer.stdout) });
  if (typeof made.key !== 'string' || typeof made.key_id !== 'number') {
    throw new Error(`platform-key create answered without a key: ${JSON.stringify(made.key_id)}`);
  }
  return { key: made.key, keyId: made.key_id };
}
