import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from './common/config/app-config.js';
import { credentialScopeMiddleware } from './common/database/credential-freshness.js';
import { answerClientErrorsWithProblems } from './common/http/client-error.js';
import { ProblemFilter } from './common/http/problem.filter.js';
import { createValidationPipe } from './common/http/validation.js';
import { API_PREFIX, buildOpenApiDocument, setupSwagger } from './openapi.js';

/** Everything the HTTP application needs besides its modules; shared by main.ts and the tests. */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  app.set('trust proxy', config.TRUST_PROXY);
  app.disable('x-powered-by');
  // Express's automatic weak ETags would answer 304 on every GET; only versions carry an ETag,
  // the content hash, which their route sets itself
  app.set('etag', false);
  app.useBodyParser('json', { limit: config.BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: config.BODY_LIMIT, extended: false });
  // after the body parsers: their stream callbacks would leave the request's async context
  app.use(credentialScopeMiddleware);
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready', 'metrics'] });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ProblemFilter());
  answerClientErrorsWithProblems(app.getHttpServer());
  setupSwagger(app, buildOpenApiDocument(app));
}
