import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from './common/config/app-config.js';
import { openCredentialScope } from './common/database/credential-freshness.js';
import { registerBodyParsers } from './common/http/body-parsers.js';
import { ProblemFilter } from './common/http/problem.filter.js';
import { createValidationPipe } from './common/http/validation.js';
import { registerHttpMetrics } from './modules/metrics/http-metrics.js';
import { API_PREFIX, buildOpenApiDocument, setupSwagger } from './openapi.js';

/** Everything the HTTP application needs besides its modules; shared by main.ts and the tests. */
export function configureApp(app: NestFastifyApplication, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  registerBodyParsers(fastify, config.BODY_LIMIT);
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  // just before the route runs, after the body has been read: the scope is the async context of
  // the guard and the handler whatever the body's stream callbacks did to it
  fastify.addHook('preHandler', openCredentialScope);
  registerHttpMetrics(app);
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready', 'metrics'] });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ProblemFilter());
  setupSwagger(app, buildOpenApiDocument(app));
}
