/**
 * The first integration, end to end, typed by the types generated from openapi.json
 * (`examples/api-types.d.ts`, rewritten by `npm run openapi`): a breaking change of the API
 * makes this file fail to compile.
 *
 *   token (client credentials) → list projects → read a document and its current version →
 *   check the document out → stage a candidate revision (If-Match + Lock-Token) → check it in
 *
 * Run it against a service:
 *   BASE_URL=http://localhost:3000 CLIENT_ID=gci_… CLIENT_SECRET=gcs_… DOCUMENT_ID=1 \
 *     npm run example:quickstart
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import type { components, paths } from './api-types.js';

type Schemas = components['schemas'];

export interface QuickstartOptions {
  /** Origin of the service, e.g. `http://localhost:3000` (the paths carry `/api/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  documentId: number;
  /** Where progress is written; silent when omitted. */
  log?: (line: string) => void;
}

export interface QuickstartResult {
  token: Schemas['TokenResponseDto'];
  projects: Schemas['ProjectListResponse'];
  document: Schemas['DocumentResponse'];
  version: Schemas['VersionResponse'];
  etag: string | null;
  checkout: Schemas['CheckoutResponseDto'];
  staged: Schemas['StagedRevisionDto'];
  location: string | null;
  checkin: Schemas['CheckinResponseDto'];
}

/** A step that did not answer as expected, with the API's error body (problem details or RFC 6749). */
export class QuickstartError extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${step} failed with HTTP ${status}: ${JSON.stringify(body)}`);
  }
}

function expectData<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new QuickstartError(step, result.response.status, result.error);
  }
  return result.data;
}

export async function quickstart(options: QuickstartOptions): Promise<QuickstartResult> {
  const log = options.log ?? (() => undefined);
  const api = createClient<paths>({ baseUrl: options.baseUrl });

  // 1. A bearer token with the client-credentials grant (keep the secret in a secret store)
  const token = expectData(
    'token',
    await api.POST('/api/v1/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: options.clientId,
        client_secret: options.clientSecret,
      },
    }),
  );
  log(`token: ${token.token_type}, expires in ${token.expires_in} s, scopes "${token.scope}"`);
  api.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token.access_token}`);
      return request;
    },
  });

  // 2. The tenant's projects
  const projects = expectData(
    'list projects',
    await api.GET('/api/v1/projects', { params: { query: { limit: 10, offset: 0 } } }),
  );
  log(`projects: ${projects.page.total} (${projects.data.map((p) => p.name).join(', ')})`);

  // 3. The document, its version index and its current version (whose ETag is the content hash)
  const documentId = options.documentId;
  const document = expectData(
    'read document',
    await api.GET('/api/v1/documents/{documentId}', { params: { path: { documentId } } }),
  );
  const versionId = document.current_version_id;
  if (versionId === null) throw new QuickstartError('read document', 200, 'no current version');
  const versionResult = await api.GET('/api/v1/documents/{documentId}/versions/{versionId}', {
    params: { path: { documentId, versionId } },
  });
  const version = expectData('read version', versionResult);
  const etag = versionResult.response.headers.get('etag');
  log(`document ${documentId} "${document.title}": version ${version.number}, ETag ${etag}`);

  // 4. Check it out: while the lock lives, staging needs its one-time token
  const checkout = expectData(
    'checkout',
    await api.POST('/api/v1/documents/{documentId}/checkout', {
      params: { path: { documentId } },
      body: { ttl_minutes: 15 },
    }),
  );
  log(`checked out until ${checkout.expires_at}`);

  // 5. Propose new content against the current version; If-Match refuses a stale base
  // (400 version_conflict), the Idempotency-Key makes a retry after a network error safe
  try {
    const stagedResult = await api.POST('/api/v1/documents/{documentId}/external-revisions', {
      params: {
        path: { documentId },
        header: {
          'If-Match': `"${version.content_hash}"`,
          'Lock-Token': checkout.lock_token,
          'Idempotency-Key': randomUUID(),
        },
      },
      body: {
        content: { ...version.content, reviewed_by_integration: true },
        base_version_id: versionId,
        source_reference: 'quickstart',
      },
    });
    const staged = expectData('stage revision', stagedResult);
    const location = stagedResult.response.headers.get('location');
    log(`staged candidate revision ${staged.revisionId} (${staged.status}) at ${location}`);

    // 6. Check it in: the lock token is dead afterwards
    const checkin = expectData(
      'checkin',
      await api.POST('/api/v1/documents/{documentId}/checkin', {
        params: { path: { documentId } },
        body: { lock_token: checkout.lock_token },
      }),
    );
    log(`checked in at ${checkin.released_at}`);
    return { token, projects, document, version, etag, checkout, staged, location, checkin };
  } catch (err) {
    // never leave the document locked behind a failed step
    await api.POST('/api/v1/documents/{documentId}/checkin', {
      params: { path: { documentId } },
      body: { lock_token: checkout.lock_token },
    });
    throw err;
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

async function main(): Promise<void> {
  const documentId = Number(requiredEnv('DOCUMENT_ID'));
  if (!Number.isInteger(documentId) || documentId < 1) throw new Error('DOCUMENT_ID: an integer');
  await quickstart({
    baseUrl: process.env['BASE_URL'] ?? 'http://localhost:3000',
    clientId: requiredEnv('CLIENT_ID'),
    clientSecret: requiredEnv('CLIENT_SECRET'),
    documentId,
    log: (line) => process.stdout.write(`${line}\n`),
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`quickstart: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
