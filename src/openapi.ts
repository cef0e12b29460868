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
    operationIdFactory: (controllerKey: string, methodKey: string) =>
      `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
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
