import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { networkInterfaces } from 'node:os';
import { Logger } from 'nestjs-pino';
import { pino } from 'pino';
import { createApp } from './app.setup.js';
import {
  checkServingConfig,
  configWith,
  ConfigError,
  loadConfig,
} from './common/config/load-config.js';
import { keepMallocSettingsFromChildren } from './common/config/service-malloc-env.js';
import { ensureLocalSecretKey } from './common/config/local-secret-key.js';
import {
  type EmbeddedDatabase,
  startEmbeddedDatabase,
} from './common/database/embedded-database.js';
import { runMigrations } from './common/database/migrate.js';
import { gracefulClose } from './common/http/graceful-close.js';
import { releaseStartupGarbage } from './common/http/young-garbage.js';
import { logStream } from './common/logging/log-format.js';
import { LOG_HYGIENE } from './common/logging/logging.module.js';
import { API_PREFIX } from './openapi.js';
import { onFirstStart } from './first-start.js';
import { type AdminServer, startAdminServer } from './cli/admin-server.js';
import { adminSocketPath } from './cli/admin-socket-path.js';
import { announceReady } from './ready-signal.js';
import { type SideListeners, startSideListeners } from './side-listeners.js';
import { traceHooks } from './common/tracing/trace-hooks.js';
import { createPlatformApp } from './platform-api/platform-app.js';

/**
 * Every interface, as a service in a container must (Fastify's own default is localhost only):
 * IPv6 and IPv4 where the host has IPv6, as Node listens by default, IPv4 otherwise. Given
 * explicitly so both adapters listen alike.
 */
function anyAddress(): string {
  const hasIpv6 = Object.values(networkInterfaces()).some((addresses) =>
    addresses?.some((a) => a.family === 'IPv6'),
  );
  return hasIpv6 ? '::' : '0.0.0.0';
}

/** Each stops the service and its embedded PostgreSQL (SIGHUP: a closed terminal or session). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/** How long a shutdown waits for requests in flight before closing the application anyway. */
const SHUTDOWN_REQUESTS_MS = 10_000;

async function main(): Promise<void> {
  // read by glibc when this process started; the embedded PostgreSQL gets its own
  keepMallocSettingsFromChildren();
  // replaced (never changed) once embedded mode knows its database URL and webhook key
  let config = loadConfig();
  const log = pino(
    { level: config.LOG_LEVEL, base: { component: 'bootstrap' }, ...LOG_HYGIENE },
    logStream(config),
  );
  const started = Date.now();
  // decided by the settings as given: embedded mode fills in DATABASE_URL below
  const socketPath = adminSocketPath(config);
  // a stop signal during start-up is kept and acted on once the shutdown below can run: Node's
  // default would end the process at once and leave the embedded PostgreSQL running
  let signalledEarly: StopSignal | 'parent exited' | undefined;
  const early = (signal: StopSignal | 'parent exited'): void => {
    signalledEarly ??= signal;
  };
  for (const signal of STOP_SIGNALS) process.on(signal, early);
  let embedded: EmbeddedDatabase | undefined;
  let app: INestApplication;
  let platformApp: INestApplication | undefined;
  try {
    if (config.embedded) {
      embedded = await startEmbeddedDatabase(config.DATA_DIR, config.EMBEDDED_PG_PORT, log);
      config = configWith(config, {
        DATABASE_URL: embedded.url,
        WEBHOOK_SECRET_KEY:
          config.WEBHOOK_SECRET_KEY ?? (await ensureLocalSecretKey(config.DATA_DIR)),
      });
      const ran = await runMigrations(embedded.adminUrl);
      if (ran.length) log.info({ migrations: ran }, 'migrations applied');
    } else {
      checkServingConfig(config);
    }
    app = await createApp(config);
    if (config.PLATFORM_API_PORT !== false) platformApp = await createPlatformApp(app, config);
    if (embedded && config.SEED_DEMO) await onFirstStart(app);
  } catch (err) {
    // a start that fails stops the PostgreSQL it started
    await embedded?.stop().catch(() => undefined);
    throw err;
  }

  const http = gracefulClose(app.getHttpServer() as Server);
  let admin: AdminServer | undefined;
  // filled once listening; a shutdown before that has none to close
  const sides: SideListeners[] = [];
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    void (async () => {
      try {
        // requests first, then the modules (audit drain, workers, the pool), then the database
        await http.close(SHUTDOWN_REQUESTS_MS);
        await admin?.close();
        await Promise.all(sides.map((side) => side.close()));
        await app.close();
        await embedded?.stop();
        // the spans still buffered, the shutdown's own included (tracing on only)
        await traceHooks()?.shutdown();
        process.exit(0);
      } catch (err) {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      }
    })();
  };
  const onSignal = (signal: StopSignal | 'parent exited'): void => {
    // SIGHUP: the terminal or SSH session is gone, so writes to it fail from now on; that must
    // not end the shutdown before it has stopped the embedded PostgreSQL
    if (signal === 'SIGHUP') {
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    }
    shutdown(signal);
  };
  let listening = false;
  // spawned with an IPC channel (the testing kit): the service dies with the process that started it
  if (process.channel)
    process.on('disconnect', () => (listening ? onSignal : early)('parent exited'));

  let side: SideListeners;
  // before the first request: no one waits on it (a few hundred ms of the start)
  releaseStartupGarbage();
  try {
    await app.listen(config.PORT, anyAddress());
    side = await startSideListeners(app, config, platformApp);
    sides.push(side);
    if (socketPath) admin = await startAdminServer(socketPath, config, log, app.get(Logger));
  } catch (err) {
    // a port taken (the API's, a side listener's) or an admin socket that cannot be made: the
    // PostgreSQL this start began is stopped too, not left running
    await admin?.close().catch(() => undefined);
    await Promise.all(sides.map((side) => side.close().catch(() => undefined)));
    await app.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  listening = true;
  for (const signal of STOP_SIGNALS) {
    process.off(signal, early);
    process.on(signal, onSignal);
  }
  if (signalledEarly) return onSignal(signalledEarly);
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  const { platformPort, metricsPort } = side;
  await announceReady({ port, platformPort, metricsPort }, config.READY_FILE);
  const url = (await app.getUrl()).replace('[::1]', 'localhost').replace('127.0.0.1', 'localhost');
  log.info(
    {
      startup_ms: Date.now() - started,
      api: `${url}/${API_PREFIX}`,
      docs: `${url}/${API_PREFIX}/docs`,
      openapi: `${url}/${API_PREFIX}/openapi.json`,
      database: embedded ? 'embedded' : 'external',
      ...(side.platformPort === undefined
        ? {}
        : { platform: `http://${config.PLATFORM_API_HOST}:${side.platformPort}` }),
      ...(side.metricsPort === undefined
        ? {}
        : { metrics: `http://${config.METRICS_HOST}:${side.metricsPort}/metrics` }),
      node: process.version,
      http_adapter: config.HTTP_ADAPTER,
    },
    `GRC Integration API listening (Node ${process.version}, ${config.HTTP_ADAPTER}): Swagger UI at ${url}/${API_PREFIX}/docs`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(
      `start-up failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exit(1);
});
