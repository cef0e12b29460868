import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SCOPES } from './modules/auth/scopes.js';

const SCOPE_DESCRIPTIONS: Record<(typeof SCOPES)[number], string> = {
  'projects:read': 'Read projects, their documents and file metadata',
  'documents:read': 'Read documents, versions and candidate revisions',
  'revisions:write': 'Stage candidate external revisions',
  'locks:write': 'Check documents out and in',
  'webhooks:read': 'List webhooks and deliveries',
  'webhooks:write': 'Manage webhooks and replay deliveries',
};

export const API_PREFIX = 'api/v1';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Parameters = NonNullable<Operation['parameters']>;

/**
 * `@Headers('if-match')` makes the generator list a required `if-match` header beside the optional
 * `If-Match` that `@ApiHeader` documents; header names are case-insensitive, so keep the latter.
 */
function dropImplicitHeaders(parameters: Parameters): Parameters {
  const documented = new Set(
    parameters
      .filter((p) => 'in' in p && p.in === 'header' && p.description)
      .map((p) => ('name' in p ? p.name.toLowerCase() : '')),
  );
  return parameters.filter(
    (p) =>
      !('in' in p) ||
      p.in !== 'header' ||
      Boolean(p.description) ||
      !documented.has(p.name.toLowerCase()),
  );
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('GRC Integration API')
    .setDescription(
      'Tenant-scoped integration API of the governance, risk and compliance platform: read ' +
        'projects and documents, stage candidate external revisions (accepted only in the ' +
        "platform's UI), lock documents while working on them, and receive signed webhooks.\n\n" +
        'Obtain a token with the client-credentials grant at `POST /api/v1/oauth/token` ' +
        '(the **Authorize** button does this for you), then send it as `Authorization: Bearer …`. ' +
        'Errors are RFC 9457 problem details with a stable `code`.',
    )
    .setVersion('1.0.0')
    .setLicense('Proprietary', 'https://grc.example.com/terms')
    .addServer('/', 'This server (paths carry the /api/v1 prefix)')
    .addTag('auth', 'OAuth 2.0 client-credentials tokens (RFC 6749 errors, not problem details).')
    .addTag('projects', "The tenant's projects, their documents and safe file metadata.")
    .addTag('documents', 'Documents with their version index, and versions with ETags.')
    .addTag(
      'revisions',
      "Candidate external revisions: staged here, accepted only in the platform's UI.",
    )
    .addTag('locks', 'Check-out and check-in: a temporary lock with a one-time token.')
    .addTag('webhooks', 'Signed notifications (Standard Webhooks), their deliveries and replay.')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'An access token (`gat_…`) or a personal access token (`gpat_…`).',
      },
      'bearer',
    )
    .addOAuth2(
      {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: `/${API_PREFIX}/oauth/token`,
            scopes: SCOPE_DESCRIPTIONS,
          },
        },
      },
      'oauth2',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    // every operation names its context's tag; none is derived from a controller's class name
    autoTagControllers: false,
    operationIdFactory: (controllerKey: string, methodKey: string) =>
      `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (!operation) continue;
      // an operation without a security requirement is public (the token endpoint): say so
      // explicitly, so that no tool assumes a global requirement applies
      operation.security ??= [];
      operation.parameters &&= dropImplicitHeaders(operation.parameters);
    }
  }
  return document;
}

export function setupSwagger(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${API_PREFIX}/openapi.yaml`,
    swaggerOptions: { persistAuthorization: true, tryItOutEnabled: true },
    customSiteTitle: 'GRC Integration API',
  });
}
