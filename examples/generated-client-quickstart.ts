/**
 * The quick-start flow with a client from a second, independent generator: @hey-api/openapi-ts
 * reads openapi.json (examples/openapi-ts.config.mjs) and writes examples/generated-client; this
 * program uses only what it generated. Its ids are integers in the document (`type: integer`,
 * int32, 1..2147483647), so the generated schemas say so and the program checks every id it gets.
 *
 *   token → list projects → read a document and its current version → stage a candidate revision
 *   (If-Match, Idempotency-Key) → read the staged revision → list the document's revisions
 *
 *   BASE_URL=http://localhost:3000 CLIENT_ID=gci_… CLIENT_SECRET=gcs_… DOCUMENT_ID=1 \
 *     npm run example:generated-client
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createClient, createConfig } from './generated-client/client/index.js';
import {
  documentsGet,
  documentsVersion,
  oAuthToken,
  projectsList,
  revisionsGet,
  revisionsList,
  revisionsStage,
} from './generated-client/sdk.gen.js';
import {
  DocumentResponseSchema,
  ProjectResponseSchema,
  StagedRevisionDtoSchema,
} from './generated-client/schemas.gen.js';

export interface GeneratedClientRun {
  projectIds: number[];
  documentId: number;
  versionId: number;
  revisionId: number;
  listedRevisionIds: number[];
  lines: string[];
}

/** A step that did not answer as expected, with the API's error body. */
export class GeneratedClientError extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${step} failed with HTTP ${status}: ${JSON.stringify(body)}`);
  }
}

function ok<T>(step: string, result: { data?: T; error?: unknown; response?: Response }): T {
  if (result.data === undefined) {
    throw new GeneratedClientError(step, result.response?.status ?? 0, result.error);
  }
  return result.data;
}

/** An id as the document describes it: an integer in 1..2147483647. */
function id(step: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 2_147_483_647) {
    throw new GeneratedClientError(step, 200, `not an integer id: ${value}`);
  }
  return value;
}

/** The generated schemas type the ids the program reads as integers. */
function assertIntegerIds(): void {
  const ids = [
    ProjectResponseSchema.properties.projectId,
    DocumentResponseSchema.properties.documentId,
    StagedRevisionDtoSchema.properties.revisionId,
  ];
  for (const s of ids) {
    if (s.type !== 'integer' || s.format !== 'int32') {
      throw new Error(`generated schema types an id as ${s.type}/${s.format}`);
    }
  }
}

export async function runGeneratedClient(options: {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  documentId: number;
}): Promise<GeneratedClientRun> {
  assertIntegerIds();
  const lines: string[] = [];
  const anonymous = createClient(createConfig({ baseUrl: options.baseUrl }));
  const token = ok(
    'token',
    await oAuthToken({
      client: anonymous,
      body: {
        grant_type: 'client_credentials',
        client_id: options.clientId,
        client_secret: options.clientSecret,
      },
    }),
  );
  lines.push(`token: ${token.token_type}, expires in ${token.expires_in} s`);
  const client = createClient(
    createConfig({
      baseUrl: options.baseUrl,
      headers: { Authorization: `Bearer ${token.access_token}` },
    }),
  );

  const projects = ok('list projects', await projectsList({ client, query: { limit: 10 } }));
  const projectIds = projects.data.map((p) => id('list projects', p.projectId));
  lines.push(`projects: ${projectIds.join(', ')}`);

  const documentId = options.documentId;
  const document = ok('read document', await documentsGet({ client, path: { documentId } }));
  const versionId = document.current_version_id;
  if (versionId === null) throw new GeneratedClientError('read document', 200, 'no version');
  const version = ok(
    'read version',
    await documentsVersion({ client, path: { documentId, versionId: id('read', versionId) } }),
  );
  lines.push(`document ${document.documentId}: version ${version.number}`);

  const staged = ok(
    'stage revision',
    await revisionsStage({
      client,
      path: { documentId },
      headers: { 'If-Match': `"${version.content_hash}"`, 'Idempotency-Key': randomUUID() },
      body: {
        content: { ...version.content, staged_by: 'generated client' },
        base_version_id: versionId,
        source_reference: 'generated-client',
      },
    }),
  );
  const revisionId = id('stage revision', staged.revisionId);
  lines.push(`staged revision ${revisionId} (${staged.status})`);

  // the 201's link `GetRevision`: documentId and revisionId from the body
  const revision = ok(
    'read revision',
    await revisionsGet({ client, path: { documentId: staged.documentId, revisionId } }),
  );
  const listed = ok('list revisions', await revisionsList({ client, path: { documentId } }));
  lines.push(`revision ${revision.revisionId} of ${listed.data.length} listed`);
  return {
    projectIds,
    documentId: id('read document', document.documentId),
    versionId,
    revisionId,
    listedRevisionIds: listed.data.map((r) => id('list revisions', r.revisionId)),
    lines,
  };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runGeneratedClient({
    baseUrl: process.env['BASE_URL'] ?? 'http://localhost:3000',
    clientId: requiredEnv('CLIENT_ID'),
    clientSecret: requiredEnv('CLIENT_SECRET'),
    documentId: Number(requiredEnv('DOCUMENT_ID')),
  }).then(
    (run) => process.stdout.write(`${run.lines.join('\n')}\n`),
    (err: unknown) => {
      process.stderr.write(
        `generated client: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
