import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { digest, isWellFormedToken } from '../src/common/crypto/tokens.js';

/**
 * Scenario 6, the raw floor: `GET /api/v1/documents/{id}` on bare node:http + pg, doing the same
 * database work as the service does for scenario 1 and nothing else — no framework, no logging,
 * no validation layer. Same statements: the token digest look-up joined to client and tenant, then
 * a tenant transaction (role switch + `app.tenant_id`, so row-level security applies as in the
 * service), the document row, and its version index. Same pool size as the service (20). The
 * parameterised statements are named (prepared once per connection), as the service's hot
 * statements are, so the floor does not pay for parsing and planning the service no longer pays.
 *
 * Env: DATABASE_URL, PORT.
 */

// Copied from src/modules/auth/credentials.service.ts (ACCESS_TOKEN_LOOKUP): keep in step.
const ACCESS_TOKEN_LOOKUP = `
  SELECT t.tenant_id, t.api_client_id AS credential_id, t.scopes, c.allowed_ips, ten.plan,
    (SELECT json_agg(json_build_object('entitlement', o.entitlement, 'granted', o.granted))
      FROM tenant_entitlement_overrides o WHERE o.tenant_id = ten.id) AS overrides
  FROM access_tokens t
  JOIN api_clients c ON c.id = t.api_client_id AND c.enabled
  JOIN tenants ten ON ten.id = t.tenant_id
  WHERE t.token_digest = $1 AND t.revoked_at IS NULL AND t.expires_at > now()`;

const DOCUMENT = `SELECT id, project_id, title, status, current_version_id, created_at, updated_at
  FROM documents WHERE tenant_id = $1 AND id = $2`;

const VERSIONS = `SELECT id, number, content_hash, created_at, source
  FROM document_versions WHERE tenant_id = $1 AND document_id = $2 ORDER BY number ASC`;

interface TokenRow {
  tenant_id: number;
  scopes: string[];
}

interface DocumentRow {
  id: number;
  project_id: number;
  title: string;
  status: string;
  current_version_id: number | null;
  created_at: Date;
  updated_at: Date;
}

interface VersionRow {
  id: number;
  number: number;
  content_hash: string;
  created_at: Date;
  source: string;
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}

async function getDocument(tenantId: number, documentId: number): Promise<unknown> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `SET LOCAL ROLE grc_app; SELECT set_config('app.tenant_id', '${tenantId}', true)`,
    );
    const docs = await client.query<DocumentRow>({
      name: 'floor_document',
      text: DOCUMENT,
      values: [tenantId, documentId],
    });
    const doc = docs.rows[0];
    if (!doc) {
      await client.query('COMMIT');
      return null;
    }
    const versions = await client.query<VersionRow>({
      name: 'floor_versions',
      text: VERSIONS,
      values: [tenantId, documentId],
    });
    await client.query('COMMIT');
    return {
      documentId: doc.id,
      projectId: doc.project_id,
      title: doc.title,
      status: doc.status,
      current_version_id: doc.current_version_id,
      created_at: doc.created_at.toISOString(),
      updated_at: doc.updated_at.toISOString(),
      versions: versions.rows.map((v) => ({
        versionId: v.id,
        number: v.number,
        content_hash: v.content_hash,
        created_at: v.created_at.toISOString(),
        source: v.source,
      })),
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const server = createServer((req, res) => {
  void (async () => {
    try {
      if (req.url === '/ready') return send(res, 200, { status: 'ok' });
      const m = /^\/api\/v1\/documents\/(\d+)$/.exec(req.url ?? '');
      if (req.method !== 'GET' || !m) return send(res, 404, { code: 'not_found' });
      const auth = req.headers.authorization ?? '';
      const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
      if (!isWellFormedToken(token, 'gat')) return send(res, 401, { code: 'invalid_token' });
      const principal = (
        await pool.query<TokenRow>({
          name: 'floor_token',
          text: ACCESS_TOKEN_LOOKUP,
          values: [digest(token)],
        })
      ).rows[0];
      if (!principal) return send(res, 401, { code: 'invalid_token' });
      if (!principal.scopes.includes('documents:read')) {
        return send(res, 403, { code: 'insufficient_scope' });
      }
      const doc = await getDocument(principal.tenant_id, Number(m[1]));
      return doc ? send(res, 200, doc) : send(res, 404, { code: 'not_found' });
    } catch (err) {
      process.stderr.write(`${String(err)}\n`);
      return send(res, 500, { code: 'internal_error' });
    }
  })();
});

server.listen(Number(process.env.PORT), '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
