import { rename, writeFile } from 'node:fs/promises';

/** What the service announces once it accepts requests (IPC message and READY_FILE alike). */
export interface ReadyMessage {
  type: 'grc-integration-api:ready';
  pid: number;
  port: number;
  /** `http://127.0.0.1:<port>`: the service listens on every interface, loopback included. */
  url: string;
}

/**
 * Tells whoever started the service that it is ready and on which port: an IPC message when it was
 * spawned with an IPC channel, and/or a JSON file written atomically (rename), never a log line.
 */
export async function announceReady(port: number, readyFile: string | undefined): Promise<void> {
  const message: ReadyMessage = {
    type: 'grc-integration-api:ready',
    pid: process.pid,
    port,
    url: `http://127.0.0.1:${port}`,
  };
  if (readyFile) {
    const partial = `${readyFile}.${process.pid}.tmp`;
    await writeFile(partial, `${JSON.stringify(message)}\n`, { mode: 0o600 });
    await rename(partial, readyFile);
  }
  process.send?.(message);
}
