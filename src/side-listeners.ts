import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import type { AppConfig } from './common/config/app-config.js';
import { gracefulClose } from './common/http/graceful-close.js';
import { type MetricsListener, startMetricsListener } from './modules/metrics/metrics-listener.js';
import { MetricsService } from './modules/metrics/metrics.service.js';

/** The listeners beside the API port, once they accept connections. */
export interface SideListeners {
  /** METRICS_PORT's listener's port, when it is set. */
  metricsPort?: number;
  /** The platform listener's port, unless PLATFORM_API_PORT is `off`. */
  platformPort?: number;
  close(): Promise<void>;
}

/** How long a shutdown waits for the platform API's requests in flight. */
const PLATFORM_SHUTDOWN_MS = 10_000;

/**
 * Starts what listens beside the API port: `/metrics` on METRICS_PORT when set, and the platform
 * API (`platformApp`, which serves `/metrics` too) on PLATFORM_API_PORT (loopback by default)
 * unless it is `off`.
 */
export async function startSideListeners(
  app: INestApplication,
  config: AppConfig,
  platformApp?: INestApplication,
): Promise<SideListeners> {
  const metrics = app.get(MetricsService);
  const scrape = () => metrics.scrape();
  const started: MetricsListener[] = [];
  const listen = async (name: string, host: string, port: number): Promise<number> => {
    try {
      const listener = await startMetricsListener(host, port, scrape);
      started.push(listener);
      return listener.port;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`${name}=${port} on ${host} could not be listened on: ${reason}`);
    }
  };
  let platformClose: (() => Promise<void>) | undefined;
  const close = async () => {
    await Promise.all([...started.map((listener) => listener.close()), platformClose?.()]);
  };
  try {
    const ports: Omit<SideListeners, 'close'> = {};
    if (config.METRICS_PORT !== undefined) {
      ports.metricsPort = await listen('METRICS_PORT', config.METRICS_HOST, config.METRICS_PORT);
    }
    if (config.PLATFORM_API_PORT !== false && platformApp) {
      const { PLATFORM_API_HOST: host, PLATFORM_API_PORT: port } = config;
      const server = platformApp.getHttpServer() as Server;
      const graceful = gracefulClose(server);
      try {
        await platformApp.listen(port, host);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new Error(`PLATFORM_API_PORT=${port} on ${host} could not be listened on: ${reason}`);
      }
      platformClose = async () => {
        await graceful.close(PLATFORM_SHUTDOWN_MS);
        await platformApp.close();
      };
      ports.platformPort = (server.address() as AddressInfo).port;
    }
    return { ...ports, close };
  } catch (err) {
    await close();
    throw err;
  }
}
