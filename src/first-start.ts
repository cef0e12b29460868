import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { AppConfig } from './common/config/app-config.js';
import { DemoSeedService, type DemoSeed } from './demo/demo-seed.service.js';
import { API_PREFIX } from './openapi.js';
import { PlatformKeysService } from './modules/platform-keys/platform-keys.service.js';
import { PLATFORM_SCOPES } from './modules/platform-keys/platform-scopes.js';
import { PLATFORM_PREFIX } from './platform-api/platform-openapi.js';

/** The platform API's demo key, printed with the demo tenant's credentials. */
interface PlatformDemo {
  key: string;
  url: string;
}

function box(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const rule = '─'.repeat(width + 2);
  return [`┌${rule}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${rule}┘`, ''].join('\n');
}

function banner(seed: DemoSeed, baseUrl: string, platform?: PlatformDemo): string {
  const platformLines = platform
    ? [
        '',
        `Platform API key (every platform scope): ${platform.key}`,
        `Platform API Swagger UI: ${platform.url}/${PLATFORM_PREFIX}/docs`,
      ]
    : [];
  return box([
    'Demo tenant created (first start). These credentials are shown ONCE:',
    '',
    `  client_id:     ${seed.client_id}`,
    `  client_secret: ${seed.client_secret}`,
    '',
    `Swagger UI: ${baseUrl}/${API_PREFIX}/docs  (Authorize → oauth2, client credentials)`,
    '',
    'Get a token:',
    `  curl -s -u '${seed.client_id}:${seed.client_secret}' \\`,
    `    -d grant_type=client_credentials ${baseUrl}/${API_PREFIX}/oauth/token`,
    ...platformLines,
  ]);
}

/**
 * Embedded first start (no tenant yet): seeds the demo tenant and prints its client credentials
 * once, on stdout only: log lines must never carry a secret, so the logger is not used here.
 */
export async function onFirstStart(app: INestApplication): Promise<void> {
  const demo = app.get(DemoSeedService);
  if (await demo.anyTenantExists()) return;
  const seed = await demo.seed();
  const config = app.get(AppConfig);
  let platform: PlatformDemo | undefined;
  if (config.PLATFORM_API_PORT !== false) {
    const made = await app.get(PlatformKeysService).create('demo', [...PLATFORM_SCOPES]);
    const host = config.PLATFORM_API_HOST.includes(':')
      ? `[${config.PLATFORM_API_HOST}]`
      : config.PLATFORM_API_HOST;
    platform = { key: made.key, url: `http://${host}:${config.PLATFORM_API_PORT}` };
  }
  const show = (port: number): void => {
    process.stdout.write(`\n${banner(seed, `http://localhost:${port}`, platform)}\n`);
  };
  const server = app.getHttpServer() as Server;
  const port = server.listening ? (server.address() as AddressInfo).port : config.PORT;
  // shown before listening when the port is known, so a start that then fails still shows them
  if (port !== 0) return show(port);
  server.once('listening', () => show((server.address() as AddressInfo).port));
}
