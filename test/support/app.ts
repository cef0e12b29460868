import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// not exported by the package: nestjs-pino keeps one pino-http instance per process, built by the
// first app; without a reset every later app of a test file would log into the first one's sink
import { __resetOutOfContextForTests as resetPinoRoot } from '../../node_modules/nestjs-pino/dist/esm/PinoLogger.js';
import { AppModule } from '../../src/app.module.js';
import { configureApp } from '../../src/app.setup.js';
import { type AppConfig, loadConfig } from '../../src/common/config/app-config.js';
import { createHttpAdapter } from '../../src/common/http/http-adapter.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { leakedSecrets, rememberSecret } from './secrets.js';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  /** Base URL of the listening server, e.g. http://127.0.0.1:43121 */
  baseUrl: string;
  /** Every log line the application wrote, for leak checks. */
  logs: string[];
  database: TestDatabase;
  close(): Promise<void>;
}

/**
 * Boots the real application (real PostgreSQL, real HTTP server on a free port) on a fresh
 * database of its own. Background workers are off unless `WORKERS_ENABLED: 'true'` is passed.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  database?: TestDatabase,
): Promise<TestApp> {
  const db = database ?? (await createTestDatabase());
  const config = loadConfig({
    DATABASE_URL: db.url,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'info',
    SEED_DEMO: 'false',
    WORKERS_ENABLED: 'false',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    PORT: '0',
    ...env,
  });
  // the key that encrypts webhook secrets is a secret of its own
  rememberSecret(config.WEBHOOK_SECRET_KEY);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  resetPinoRoot();
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config, { logDestination: sink }),
    createHttpAdapter(config),
    // a module that fails to boot throws here (the test fails) instead of aborting the process:
    // jest's worker, or jest itself when it runs in band with the run's embedded PostgreSQL
    { bufferLogs: true, bodyParser: false, abortOnError: false },
  );
  configureApp(app, config);
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    config,
    baseUrl,
    logs,
    database: db,
    async close() {
      await app.close();
      if (!database) await db.drop();
      const leaks = leakedSecrets(logs);
      if (leaks.length > 0) {
        throw new Error(`secrets reached the log lines of this test app: ${leaks.join(', ')}`);
      }
    },
  };
}
