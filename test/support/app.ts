import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { pino } from 'pino';
// not exported by the package: nestjs-pino keeps one pino-http instance per process, built by the
// first app; without a reset every later app of a test file would log into the first one's sink
import { __resetOutOfContextForTests as resetPinoRoot } from '../../node_modules/nestjs-pino/dist/esm/PinoLogger.js';
import { createApp } from '../../src/app.setup.js';
import { type AdminServer, startAdminServer } from '../../src/cli/admin-server.js';
import { LOG_HYGIENE } from '../../src/common/logging/logging.module.js';
import { createPlatformApp } from '../../src/platform-api/platform-app.js';
import type { AppConfig } from '../../src/common/config/app-config.js';
import { loadConfig } from '../../src/common/config/load-config.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { call, type ApiResponse } from './http.js';
import { registerServer } from './openapi-check.js';
import { leakedSecrets, rememberSecret } from './secrets.js';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** Base URL of the listening server, e.g. http://127.0.0.1:43121 */
  baseUrl: string;
  /**
   * The platform API's application and base URL (its own listener, e.g. http://127.0.0.1:43123),
   * unless the test passes `PLATFORM_API_PORT: 'off'`.
   */
  platformApp?: INestApplication;
  platformUrl: string;
  /** Every log line the application wrote, for leak checks. */
  logs: string[];
  database: TestDatabase;
  /** `GET /metrics` on the API port with the app's METRICS_TOKEN. */
  scrape(): Promise<ApiResponse>;
  /**
   * The path of an admin socket this app answers CLI command lines on, as the running service
   * does (src/cli/admin-server.ts): started on first use, in a folder of its own, closed by
   * `close()`. Its log lines join `logs`.
   */
  adminSocket(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Boots the real application (real PostgreSQL, real HTTP server on a free port) on a fresh
 * database of its own. Background workers are off unless `WORKERS_ENABLED: 'true'` is passed.
 * `/metrics` is served on its port with a METRICS_TOKEN of its own (`scrape()`) unless the test
 * passes `METRICS_TOKEN: ''`; the listeners beside the API port are main.ts's, never started here.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  database?: TestDatabase,
): Promise<TestApp> {
  const db = database ?? (await createTestDatabase());
  const config = loadConfig({
    ...db.env,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'info',
    // the lines are read as JSON, whether or not jest's stdout is a terminal
    LOG_FORMAT: 'json',
    SEED_DEMO: 'false',
    WORKERS_ENABLED: 'false',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    PORT: '0',
    METRICS_TOKEN: randomBytes(24).toString('base64url'),
    // the suites run on either adapter: `HTTP_ADAPTER=fastify npm test`
    ...(process.env.HTTP_ADAPTER ? { HTTP_ADAPTER: process.env.HTTP_ADAPTER } : {}),
    ...env,
  });
  // the key that encrypts webhook secrets is a secret of its own
  rememberSecret(config.WEBHOOK_SECRET_KEY);
  if (config.METRICS_TOKEN) rememberSecret(config.METRICS_TOKEN);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  resetPinoRoot();
  // abortOnError is off in createApp: a module that fails to boot throws here (the test fails)
  // instead of exiting jest's worker and orphaning the run's embedded PostgreSQL
  const app = await createApp(config, { logDestination: sink });
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  registerServer(baseUrl, 'integration');
  let platformApp: INestApplication | undefined;
  let platformUrl = '';
  if (config.PLATFORM_API_PORT !== false) {
    platformApp = await createPlatformApp(app, config, { logDestination: sink });
    await platformApp.listen(0, '127.0.0.1');
    platformUrl = (await platformApp.getUrl()).replace('[::1]', '127.0.0.1');
    registerServer(platformUrl, 'platform');
  }
  let admin: Promise<{ server: AdminServer; dir: string; path: string }> | undefined;
  const startAdmin = async (): Promise<{ server: AdminServer; dir: string; path: string }> => {
    const dir = await mkdtemp(join(tmpdir(), 'grc-admin-'));
    const path = join(dir, 'admin.sock');
    // as serve.ts gives it: its own pino logger and the service's Nest logger, both into `logs`
    const log = pino(
      { level: config.LOG_LEVEL, base: { component: 'bootstrap' }, ...LOG_HYGIENE },
      sink,
    );
    const server = await startAdminServer(path, config, log, app.get(Logger));
    return { server, dir, path };
  };
  return {
    app,
    config,
    baseUrl,
    platformApp,
    platformUrl,
    logs,
    database: db,
    scrape: () =>
      call(baseUrl, 'GET', '/metrics', { auth: `Bearer ${config.METRICS_TOKEN ?? ''}` }),
    adminSocket: async () => (await (admin ??= startAdmin())).path,
    async close() {
      const served = await admin?.catch(() => undefined);
      if (served) {
        await served.server.close();
        await rm(served.dir, { recursive: true, force: true });
      }
      await platformApp?.close();
      await app.close();
      if (!database) await db.drop();
      const leaks = leakedSecrets(logs);
      if (leaks.length > 0) {
        throw new Error(`secrets reached the log lines of this test app: ${leaks.join(', ')}`);
      }
    },
  };
}
