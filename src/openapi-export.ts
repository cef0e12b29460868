import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { createApp } from './app.setup.js';
import { loadConfig } from './common/config/load-config.js';
import { buildOpenApiDocument } from './openapi.js';
import { createPlatformApp } from './platform-api/platform-app.js';
import { buildPlatformOpenApiDocument } from './platform-api/platform-openapi.js';

/**
 * Writes openapi.json (integration API) and openapi.platform.json (platform API) without a database: preview mode builds the module graph and routes but
 * instantiates no provider, so nothing connects. The document does not depend on `HTTP_ADAPTER`.
 */
async function main(): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    LOG_LEVEL: 'silent',
  });
  const app = await createApp(config, { preview: true });
  const document = buildOpenApiDocument(app);
  writeFileSync('openapi.json', `${JSON.stringify(document, null, 2)}\n`);
  const platformApp = await createPlatformApp(app, config, { preview: true });
  const platformDocument = buildPlatformOpenApiDocument(platformApp);
  writeFileSync('openapi.platform.json', `${JSON.stringify(platformDocument, null, 2)}\n`);
  await platformApp.close();
  await app.close();
}

await main();
