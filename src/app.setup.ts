import type { Server } from 'node:http';
import { type INestApplication, Logger as NestLogger } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import type { ServedAppOptions } from './app-foundation.js';
import { AppModule } from './app.module.js';
import type { AppConfig } from './common/config/app-config.js';
import {
  boundRequestHeads,
  capConnections,
  capConnectionsPerAddress,
} from './common/http/connection-cap.js';
import { trustedPeer } from './common/net/peer-address.js';
import { DeferredBodyErrorInterceptor } from './common/http/deferred-body-error.interceptor.js';
import { createHttpPlatform } from './common/http/platform/create-http-platform.js';
import type { BodyAdmission, HttpPlatform } from './common/http/platform/http-platform.js';
import { ProblemFilter } from './common/http/problem.filter.js';
import { BodylessRouteInterceptor } from './common/http/bodyless-route.js';
import { KnownQueryInterceptor } from './common/http/known-query.js';
import { createValidationPipe } from './common/http/validation.js';
import { BodyAdmissionService } from './modules/auth/body-admission.service.js';
import { openCredentialScope } from './modules/auth/credential-freshness.js';
import { runWhileClientWaits } from './common/http/client-waits.js';
import { TOKEN_ROUTE } from './common/http/token-route.js';
import { MetricsService } from './modules/metrics/metrics.service.js';
import { routeLabel } from './modules/metrics/route-label.js';
import { API_PREFIX, buildOpenApiDocument, setupSwagger } from './openapi.js';

/**
 * Routes served outside `/api/v1`; `/platform/...` is the integration API's catch-all there (the
 * platform API's paths are answered as unknown routes of this one: 401, or 404 with a token).
 */
export const UNPREFIXED_ROUTES = [
  'health/live',
  'health/ready',
  'metrics',
  'platform',
  'platform/{*path}',
];

export interface CreateAppOptions extends Omit<ServedAppOptions, 'platform'> {
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

/** What tells the two HTTP applications (integration API, platform API) apart at the edge. */
export interface ApiSurface {
  /** The global prefix, e.g. `api/v1`. */
  prefix: string;
  /** Routes served outside the prefix. */
  unprefixed: string[];
  /** Whether, and how, a request's body is read (the credential is checked first). */
  admitsBody: BodyAdmission;
  /** Runs around guards and handler (the integration API's credential-freshness scope). */
  aroundHandler?: (next: () => void) => void;
  /** Routes answered with OAuth errors instead of problem details. */
  oauthRoutes?: ReadonlySet<string>;
  /** Serves the surface's OpenAPI document with Swagger UI (built on its first request). */
  swagger(app: INestApplication): void;
}

/** Everything the HTTP application needs besides its modules. */
function configureApp(app: INestApplication, platform: HttpPlatform, config: AppConfig): void {
  const bodyAdmission = app.get(BodyAdmissionService);
  configureHttp(app, platform, config, {
    prefix: API_PREFIX,
    unprefixed: UNPREFIXED_ROUTES,
    admitsBody: (req, route) => bodyAdmission.admits(req, route),
    aroundHandler: openCredentialScope,
    oauthRoutes: new Set([TOKEN_ROUTE]),
    swagger: (target) => setupSwagger(target, () => buildOpenApiDocument(target)),
  });
}

/**
 * The edge every HTTP application of the service shares: connection caps, head time-out, the
 * platform's request hooks (body admission, metrics), pipes, interceptors, the problem filter.
 */
export function configureHttp(
  app: INestApplication,
  platform: HttpPlatform,
  config: AppConfig,
  surface: ApiSurface,
): void {
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
  const around = surface.aroundHandler ?? ((next: () => void) => next());
  platform.configure(app, {
    admitsBody: surface.admitsBody,
    beforeHandler: (res, next) => runWhileClientWaits(res, () => around(next)),
    onResponse: (req, route, status, seconds) => {
      try {
        metrics.observeRequest(req.method, routeLabel(route), status, seconds);
      } catch (err) {
        // a 'finish' listener: a throw here would end the process
        logger.warn({ err }, 'request metrics not recorded');
      }
    },
  });
  app.setGlobalPrefix(surface.prefix, { exclude: surface.unprefixed });
  app.useGlobalInterceptors(new DeferredBodyErrorInterceptor());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalInterceptors(new KnownQueryInterceptor(app.get(Reflector)));
  app.useGlobalInterceptors(new BodylessRouteInterceptor());
  app.useGlobalFilters(new ProblemFilter(platform, surface.oauthRoutes ?? new Set()));
  surface.swagger(app);
}
