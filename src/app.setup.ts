import type { Server } from 'node:http';
import { type INestApplication, Logger as NestLogger } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule, type AppModuleOptions } from './app.module.js';
import type { AppConfig } from './common/config/app-config.js';
import {
  boundRequestHeads,
  capConnections,
  capConnectionsPerAddress,
} from './common/http/connection-cap.js';
import { trustedPeer } from './common/net/peer-address.js';
import { DeferredBodyErrorInterceptor } from './common/http/deferred-body-error.interceptor.js';
import { createHttpPlatform } from './common/http/platform/create-http-platform.js';
import type { HttpPlatform } from './common/http/platform/http-platform.js';
import { ProblemFilter } from './common/http/problem.filter.js';
import { BodylessRouteInterceptor } from './common/http/bodyless-route.js';
import { KnownQueryInterceptor } from './common/http/known-query.js';
import { createValidationPipe } from './common/http/validation.js';
import { BodyAdmissionService } from './modules/auth/body-admission.service.js';
import { openCredentialScope } from './modules/auth/credential-freshness.js';
import { runWhileClientWaits } from './common/http/client-waits.js';
import { TOKEN_ROUTE } from './modules/auth/token-route.js';
import { MetricsService } from './modules/metrics/metrics.service.js';
import { routeLabel } from './modules/metrics/route-label.js';
import { API_PREFIX, buildOpenApiDocument, setupSwagger } from './openapi.js';

/** Routes served outside `/api/v1`. */
export const UNPREFIXED_ROUTES = ['health/live', 'health/ready', 'metrics'];

export interface CreateAppOptions extends Omit<AppModuleOptions, 'platform'> {
  /** Builds the module graph and routes without instantiating providers (OpenAPI export). */
  preview?: boolean;
}

/**
 * The HTTP application on the adapter `HTTP_ADAPTER` names, configured, not yet listening; shared
 * by main.ts, the OpenAPI export and the tests.
 */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<INestApplication> {
  const platform = createHttpPlatform(config);
  const { preview, ...moduleOptions } = options;
  const app = await NestFactory.create(
    AppModule.register(config, { ...moduleOptions, platform }),
    platform.createAdapter(),
    preview
      ? { preview: true, logger: false, abortOnError: false }
      : // a module that fails to boot throws instead of exiting the process (tests, main's catch)
        { bufferLogs: true, bodyParser: false, abortOnError: false },
  );
  if (preview) app.setGlobalPrefix(API_PREFIX, { exclude: UNPREFIXED_ROUTES });
  else configureApp(app, platform, config);
  return app;
}

/** Everything the HTTP application needs besides its modules. */
function configureApp(app: INestApplication, platform: HttpPlatform, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  const logger = new NestLogger('HttpPlatform');
  const server = app.getHttpServer() as Server;
  capConnections(server, config.MAX_CONNECTIONS, (dropped, max) =>
    logger.warn({ dropped, max_connections: max }, 'connections dropped: MAX_CONNECTIONS reached'),
  );
  capConnectionsPerAddress(
    server,
    config.MAX_CONNECTIONS_PER_ADDRESS,
    trustedPeer(config.TRUST_PROXY),
    (dropped, max, address) =>
      logger.warn(
        { dropped, max_connections_per_address: max, address },
        'connections dropped: MAX_CONNECTIONS_PER_ADDRESS reached',
      ),
  );
  boundRequestHeads(server, config.HEADERS_TIMEOUT_MS);
  const metrics = app.get(MetricsService);
  const bodyAdmission = app.get(BodyAdmissionService);
  platform.configure(app, {
    admitsBody: (req, route) => bodyAdmission.admits(req, route),
    beforeHandler: (res, next) => runWhileClientWaits(res, () => openCredentialScope(next)),
    onResponse: (req, route, status, seconds) => {
      try {
        metrics.observeRequest(req.method, routeLabel(route), status, seconds);
      } catch (err) {
        // a 'finish' listener: a throw here would end the process
        logger.warn({ err }, 'request metrics not recorded');
      }
    },
  });
  app.setGlobalPrefix(API_PREFIX, { exclude: UNPREFIXED_ROUTES });
  app.useGlobalInterceptors(new DeferredBodyErrorInterceptor());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalInterceptors(new KnownQueryInterceptor(app.get(Reflector)));
  app.useGlobalInterceptors(new BodylessRouteInterceptor());
  app.useGlobalFilters(new ProblemFilter(platform, new Set([TOKEN_ROUTE])));
  setupSwagger(app, buildOpenApiDocument(app));
}
