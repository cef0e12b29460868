import { rename, writeFile } from 'node:fs/promises';

/** What the service announces once it accepts requests (IPC message and READY_FILE alike). */
export interface ReadyMessage {
  type: 'grc-integration-api:ready';
  pid: number;
  port: number;
  /** `http://127.0.0.1:<port>`: the service listens on every interface, loopback included. */
  url: string;
  /** The platform listener's port (PLATFORM_API_PORT), unless it is off. */
  platformPort?: number;
  /** The `/metrics` listener's port (METRICS_PORT), when it is set. */
  metricsPort?: number;
}

/**
 * Tells whoever started the service that it is ready and on which port: an IPC message when it was
 * spawned with an IPC channel, and/or a JSON file written atomically (rename), never a log line.
 */
export async function announceReady(
  ports: { port: number; platformPort?: number; metricsPort?: number },
  readyFile: string | undefined,
): Promise<void> {
  const { port, platformPort, metricsPort } = ports;
  const message: ReadyMessage = {
    type: 'grc-integration-api:ready',
    pid: process.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    ...(platformPort === undefined ? {} : { platformPort }),
    ...(metricsPort === undefined ? {} : { metricsPort }),
  };
  if (readyFile) {
    const partial = `${readyFile}.${process.pid}.tmp`;
    await writeFile(partial, `${JSON.stringify(message)}\n`, { mode: 0o600 });
    await rename(partial, readyFile);
  }
  process.send?.(message);
}
