import type { INestApplication } from '@nestjs/common';
import type { AppConfig } from './common/config/app-config.js';
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

/**
 * Starts what listens beside the API port: `/metrics` on METRICS_PORT when set, and the platform
 * listener on PLATFORM_API_PORT (loopback by default) unless it is `off`.
 *
 * The platform listener is a stand-in: the platform API, a Nest application of its own still to
 * come, will listen on this port (same settings, same place in the start-up, same announcement)
 * and serve `/metrics` among its routes. Until then it serves `/metrics` only, so a deployment
 * that sets neither METRICS_TOKEN nor METRICS_PORT already scrapes where it will keep scraping.
 */
export async function startSideListeners(
  app: INestApplication,
  config: AppConfig,
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
  const close = async () => {
    await Promise.all(started.map((listener) => listener.close()));
  };
  try {
    const ports: Omit<SideListeners, 'close'> = {};
    if (config.METRICS_PORT !== undefined) {
      ports.metricsPort = await listen('METRICS_PORT', config.METRICS_HOST, config.METRICS_PORT);
    }
    if (config.PLATFORM_API_PORT !== false) {
      const { PLATFORM_API_HOST: host, PLATFORM_API_PORT: port } = config;
      ports.platformPort = await listen('PLATFORM_API_PORT', host, port);
    }
    return { ...ports, close };
  } catch (err) {
    await close();
    throw err;
  }
}
