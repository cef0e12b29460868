import type { INestApplication } from '@nestjs/common';
import { applyServiceConstraints, type OperationIdFactory } from './openapi-constraints.js';
import { addIntegrationLinks } from './openapi-links.js';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SCOPES } from './common/access/scopes.js';
import {
  CATALOG_EVENT_TYPES,
  EVENT_PAYLOAD_CLASSES,
  WEBHOOK_TEST_EVENT,
} from './modules/events/event-catalog.js';

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

/** The union of every payload, discriminated by `type` (`components.schemas.WebhookEvent`). */
export const WEBHOOK_EVENT_SCHEMA = 'WebhookEvent';

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const WEBHOOK_DELIVERY_NOTE =
  'Signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): verify ' +
  'the signature over the exact bytes received. At least once: deduplicate on `webhook-id`.';

/** A `webhooks` entry: what the service POSTs to an endpoint, and what it makes of the answer. */
function webhookOperation(
  operationId: string,
  summary: string,
  description: string,
  schema: string,
): NonNullable<OpenAPIObject['webhooks']>[string] {
  return {
    post: {
      operationId,
      tags: ['webhook events'],
      summary,
      description: `${description} ${WEBHOOK_DELIVERY_NOTE}`,
      security: [],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: schemaRef(schema) } },
      },
      responses: {
        '200': {
          description:
            'Any 2xx within `WEBHOOK_TIMEOUT_MS` (default 10 s) acknowledges the delivery; ' +
            'anything else, or no answer, is retried on the schedule.',
        },
        '410': { description: 'Gone: the service pauses the webhook instead of retrying.' },
      },
    },
  };
}

/**
 * OpenAPI 3.1 `webhooks`: what one endpoint receives (any type it subscribed to, the union), then
 * one entry per event type, each with the payload class of that type (event-catalog.ts, the
 * classes `WebhookOutbox.append` is typed with).
 */
function eventWebhooks(): NonNullable<OpenAPIObject['webhooks']> {
  return {
    event: webhookOperation(
      'webhook_event',
      'Any event',
      'A webhook endpoint receives every type it subscribed to (and `webhook.test`) at its one ' +
        'URL; `type` tells which payload it is.',
      WEBHOOK_EVENT_SCHEMA,
    ),
    ...Object.fromEntries(
      CATALOG_EVENT_TYPES.map((type) => [
        type,
        webhookOperation(
          `webhook_${type.replace('.', '_')}`,
          `\`${type}\``,
          type === WEBHOOK_TEST_EVENT
            ? 'Sent to one webhook on request, whatever its `events`.'
            : `Sent to every webhook subscribed to \`${type}\` or \`*\`.`,
          EVENT_PAYLOAD_CLASSES[type].name,
        ),
      ]),
    ),
  };
}

const operationIdFactory: OperationIdFactory = (controllerKey, methodKey) =>
  `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('GRC Integration API')
    .setDescription(
      'Tenant-scoped integration API of the governance, risk and compliance platform: read ' +
        'projects and documents, stage candidate external revisions (accepted only in the ' +
        "platform's UI), lock documents while working on them, and receive signed webhooks.\n\n" +
        'Obtain a token with the client-credentials grant at `POST /api/v1/oauth/token` ' +
        '(the **Authorize** button does this for you), then send it as `Authorization: Bearer …`. ' +
        'Errors are RFC 9457 problem details with a stable `code`. A method a path does not ' +
        'take is 405 `method_not_allowed` with `Allow` (under /api/v1 once the token is valid, as ' +
        "an unknown path's 404); an `Expect` other than `100-continue` is 417 " +
        '`expectation_failed`.',
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
    .addTag(
      'webhook events',
      'What the service sends to a webhook: one payload schema per event type, discriminated by ' +
        '`type` (all of them: `WebhookEvent`).',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        // Nest's default is JWT; these tokens are random strings looked up by digest, not JWTs
        bearerFormat: 'opaque',
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
  config.webhooks = eventWebhooks();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: Object.values(EVENT_PAYLOAD_CLASSES),
    // every operation names its context's tag; none is derived from a controller's class name
    autoTagControllers: false,
    operationIdFactory,
  });
  applyServiceConstraints(document, app, operationIdFactory, { rateLimited: true });
  const schemas = (document.components ??= {}).schemas ?? {};
  schemas[WEBHOOK_EVENT_SCHEMA] = {
    description: 'Any payload the service sends; `type` tells which.',
    oneOf: CATALOG_EVENT_TYPES.map((type) => schemaRef(EVENT_PAYLOAD_CLASSES[type].name)),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(
        CATALOG_EVENT_TYPES.map((type) => [
          type,
          `#/components/schemas/${EVENT_PAYLOAD_CLASSES[type].name}`,
        ]),
      ),
    },
  };
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
  addIntegrationLinks(document);
  return document;
}

/**
 * Serves the document, the YAML and Swagger UI. `document` is a factory: the document is built on
 * the first request for any of them (a quarter of a second of CPU, the same every time), not at
 * every start of the service and of every test app.
 */
export function setupSwagger(app: INestApplication, document: () => OpenAPIObject): void {
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${API_PREFIX}/openapi.yaml`,
    // not persistAuthorization: it keeps the client secret and the token in the browser's localStorage
    swaggerOptions: { tryItOutEnabled: true },
    customSiteTitle: 'GRC Integration API',
  });
}
