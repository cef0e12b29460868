import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { loadConfig } from './common/config/app-config.js';
import { createHttpAdapter } from './common/http/http-adapter.js';
import { API_PREFIX, buildOpenApiDocument } from './openapi.js';

/**
 * Writes openapi.json without a database: preview mode builds the module graph and routes but
 * instantiates no provider, so nothing connects.
 */
async function main(): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    LOG_LEVEL: 'silent',
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config),
    createHttpAdapter(config),
    { preview: true, logger: false, abortOnError: false },
  );
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready', 'metrics'] });
  const document = buildOpenApiDocument(app);
  writeFileSync('openapi.json', `${JSON.stringify(document, null, 2)}\n`);
  await app.close();
}

await main();
