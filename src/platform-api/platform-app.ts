import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DestinationStream } from 'pino';
import { configureHttp } from '../app.setup.js';
import { openCredentialScope } from '../modules/auth/credential-freshness.js';
import type { AppConfig } from '../common/config/app-config.js';
import { createHttpPlatform } from '../common/http/platform/create-http-platform.js';
import { PlatformApiModule } from './platform-api.module.js';
import { PlatformBodyAdmission } from './platform-body-admission.js';
import {
  buildPlatformOpenApiDocument,
  PLATFORM_PREFIX,
  setupPlatformSwagger,
} from './platform-openapi.js';

export interface CreatePlatformAppOptions {
  logDestination?: DestinationStream;
  /** Builds the module graph and routes without instantiating providers (OpenAPI export). */
  preview?: boolean;
}

/**
 * The platform API: a second HTTP application in the process, on the adapter `HTTP_ADAPTER`
 * names, sharing `owner`'s services; configured, not yet listening (main.ts listens on
 * `PLATFORM_API_PORT`).
 */
export async function createPlatformApp(
  owner: INestApplication,
  config: AppConfig,
  options: CreatePlatformAppOptions = {},
): Promise<INestApplication> {
  const platform = createHttpPlatform(config);
  const app = await NestFactory.create(
    PlatformApiModule.register(config, {
      platform,
      owner,
      logDestination: options.logDestination,
    }),
    platform.createAdapter(),
    options.preview
      ? { preview: true, logger: false, abortOnError: false }
      : { bufferLogs: true, bodyParser: false, abortOnError: false },
  );
  if (options.preview) {
    app.setGlobalPrefix(PLATFORM_PREFIX, { exclude: ['metrics'] });
    return app;
  }
  const admission = app.get(PlatformBodyAdmission);
  configureHttp(app, platform, config, {
    prefix: PLATFORM_PREFIX,
    unprefixed: ['metrics'],
    admitsBody: (req, route) => admission.admits(req, route),
    // the guard records how the key was verified, for the transactions to hold it to account
    aroundHandler: openCredentialScope,
    swagger: (target) => setupPlatformSwagger(target, () => buildPlatformOpenApiDocument(target)),
  });
  return app;
}
