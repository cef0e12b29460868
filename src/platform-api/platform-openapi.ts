import type { INestApplication } from '@nestjs/common';
import { applyServiceConstraints, type OperationIdFactory } from '../openapi-constraints.js';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PLATFORM_KEY_SCHEME } from '../modules/platform-keys/platform-access.js';

export const PLATFORM_PREFIX = 'platform/v1';

/** The platform API's own document: none of the integration API's operations are in it. */
const operationIdFactory: OperationIdFactory = (controllerKey, methodKey) =>
  `${controllerKey.replace(/(Platform)?Controller$/, '')}_${methodKey}`;

export function buildPlatformOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('GRC Platform API')
    .setDescription(
      'The host platform drives the integration service over the network with this API: ' +
        "tenants and their credentials (the platform's admin UI), the platform's own projects, " +
        "documents, versions and files (the platform's editing), the review queue of candidate " +
        "revisions (the platform's review UI), every tenant's audit trail and events.\n\n" +
        'It listens on a port of its own (`PLATFORM_API_PORT`, loopback by default), apart from ' +
        "the integration API; keep it inside the platform's network. Callers present a platform " +
        'key (`gpk_…`, made with the CLI `platform-key create`), each with scopes. Every write ' +
        "names the person in the platform's UI in `X-Acting-User` (1..200 characters): the audit " +
        'trail and the decisions record it.\n\n' +
        "Conventions are the integration API's: JSON in and out, RFC 9457 problem details with a " +
        'stable `code`, `X-Request-Id` on every answer, lists as `{ data, next_cursor }`.',
    )
    .setVersion('1.0.0')
    .addTag(
      'audit',
      "Every tenant's audit trail: who did what, on whose behalf, with what outcome.",
    )
    .addTag('events', "Every tenant's events, as a list to poll or a stream (Server-Sent Events).")
    .setLicense('Proprietary', 'https://grc.example.com/terms')
    .addServer('/', 'This server (paths carry the /platform/v1 prefix)')
    .addTag(
      'content',
      "The platform's projects, documents, versions and file metadata by its own ids; NDJSON import.",
    )
    .addTag(
      'reviews',
      'The review queue: candidate revisions of every tenant, each with its base and RFC 6902 ' +
        'diffs; accept or reject for the person in `X-Acting-User` (scope `platform:reviews`).',
    )
    .addTag('tenants', 'Tenants (companies), their plans and entitlement overrides.')
    .addTag(
      'credentials',
      "Tenants' API clients and personal access tokens; secrets shown once, never listed.",
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'A platform key (`gpk_…`).',
      },
      PLATFORM_KEY_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    autoTagControllers: false,
    operationIdFactory,
  });
  applyServiceConstraints(document, app, operationIdFactory, { rateLimited: false });
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation) operation.security ??= [];
    }
  }
  return document;
}

/** As `setupSwagger`: the document is built on its first request. */
export function setupPlatformSwagger(app: INestApplication, document: () => OpenAPIObject): void {
  SwaggerModule.setup(`${PLATFORM_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${PLATFORM_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${PLATFORM_PREFIX}/openapi.yaml`,
    swaggerOptions: { tryItOutEnabled: true },
    customSiteTitle: 'GRC Platform API',
  });
}
