import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * OpenAPI `links`: how the answer of one operation addresses the next ones of a flow, so that
 * clients, documentation and stateful testers can follow it. Keyed by operationId and status.
 */
type LinkTable = Record<string, { status: string; links: Record<string, LinkSpec> }>;

interface LinkSpec {
  operationId: string;
  /** `parameter name → runtime expression` */
  parameters?: Record<string, string>;
  description?: string;
}

const from = (pointer: string) => `$response.body#/${pointer}`;

const webhook = (pointer: string): Record<string, LinkSpec> => ({
  GetWebhook: { operationId: 'Webhooks_get', parameters: { webhookId: from(pointer) } },
  UpdateWebhook: { operationId: 'Webhooks_update', parameters: { webhookId: from(pointer) } },
  RotateWebhookSecret: {
    operationId: 'Webhooks_rotateSecret',
    parameters: { webhookId: from(pointer) },
  },
  SendTestEvent: {
    operationId: 'Webhooks_sendTestEvent',
    parameters: { webhookId: from(pointer) },
  },
  SetWebhookStatus: { operationId: 'Webhooks_setStatus', parameters: { webhookId: from(pointer) } },
});

const delivery = (pointer: string): Record<string, LinkSpec> => ({
  GetDelivery: { operationId: 'Webhooks_getDelivery', parameters: { deliveryId: from(pointer) } },
  ListAttempts: { operationId: 'Webhooks_listAttempts', parameters: { deliveryId: from(pointer) } },
  ReplayDelivery: { operationId: 'Webhooks_replay', parameters: { deliveryId: from(pointer) } },
});

const BEARER =
  'Send `access_token` as `Authorization: Bearer …`; the operation needs one of the scopes granted.';

/** Every bearer operation of the document, reached from the token endpoint's answer. */
function tokenLinks(document: OpenAPIObject): Record<string, LinkSpec> {
  const links: Record<string, LinkSpec> = {};
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item[method];
      if (!op?.operationId || !op.security?.some((s) => 'bearer' in s)) continue;
      links[op.operationId] = { operationId: op.operationId, description: BEARER };
    }
  }
  return links;
}

const INTEGRATION_LINKS: LinkTable = {
  Webhooks_create: { status: '201', links: webhook('webhookId') },
  Webhooks_get: { status: '200', links: webhook('webhookId') },
  Webhooks_sendTestEvent: { status: '202', links: delivery('deliveryId') },
  Webhooks_getDelivery: { status: '200', links: delivery('deliveryId') },
  Webhooks_replay: { status: '200', links: delivery('deliveryId') },
  Revisions_stage: {
    status: '201',
    links: {
      GetRevision: {
        operationId: 'Revisions_get',
        parameters: { documentId: from('documentId'), revisionId: from('revisionId') },
      },
      ListRevisions: {
        operationId: 'Revisions_list',
        parameters: { documentId: from('documentId') },
      },
    },
  },
  Locks_checkout: {
    status: '201',
    links: {
      CheckIn: { operationId: 'Locks_checkin', parameters: { documentId: from('documentId') } },
    },
  },
  Documents_get: {
    status: '200',
    links: {
      ListVersions: {
        operationId: 'Documents_versions',
        parameters: { documentId: from('documentId') },
      },
      StageRevision: {
        operationId: 'Revisions_stage',
        parameters: { documentId: from('documentId') },
      },
      CheckOut: { operationId: 'Locks_checkout', parameters: { documentId: from('documentId') } },
    },
  },
  Projects_get: {
    status: '200',
    links: {
      ListDocuments: {
        operationId: 'Documents_list',
        parameters: { projectId: from('projectId') },
      },
      ListFiles: { operationId: 'Projects_files', parameters: { projectId: from('projectId') } },
    },
  },
};

function addLinks(document: OpenAPIObject, table: LinkTable): void {
  const byId = new Map(
    Object.values(document.paths).flatMap((item) =>
      (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((m) =>
        item[m]?.operationId ? [[item[m].operationId, item[m]] as const] : [],
      ),
    ),
  );
  for (const [operationId, { status, links }] of Object.entries(table)) {
    const response = byId.get(operationId)?.responses[status];
    if (!response || '$ref' in response) throw new Error(`no ${status} answer of ${operationId}`);
    for (const link of Object.values(links)) {
      if (!byId.has(link.operationId)) throw new Error(`no operation ${link.operationId}`);
    }
    response.links = { ...response.links, ...links };
  }
}

/** The integration API's flows: token → bearer operations, webhook, delivery, staging, lock. */
export function addIntegrationLinks(document: OpenAPIObject): void {
  addLinks(document, {
    ...INTEGRATION_LINKS,
    OAuth_token: { status: '200', links: tokenLinks(document) },
  });
}
