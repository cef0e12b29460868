import pg from 'pg';
import { Cursor } from '../src/common/pagination/cursor.js';
import { http, seedTenant } from './harness.js';

/** Sizes of the "big tenant" (issue 24), seeded in bulk by SQL. */
export const BIG = {
  projects: 100_000,
  documents: 10_000,
  versions: 10_000,
  events: 1_000,
  /** Deliveries per event: events × this = 1,000,000 deliveries. */
  deliveriesPerEvent: 1_000,
  smallProjects: 5,
} as const;

export interface BigTenant {
  /** Bearer token of the big tenant. */
  token: string;
  /** Bearer token of a tenant with BIG.smallProjects projects (the 1.5 × comparison). */
  smallToken: string;
  /** The project holding BIG.documents documents. */
  projectId: number;
  /** The document with BIG.versions versions. */
  documentId: number;
  deliveries: number;
  /** Cursor of the last page (the 50 oldest) of GET /webhook-deliveries?limit=50. */
  lastDeliveryPage: string;
  /** Cursor of the last page of GET /projects/{projectId}/documents?limit=1000. */
  lastDocumentPage: string;
}

/**
 * Two tenants, through the CLI and the API like any other, then bulk rows by SQL as the owner
 * (generate_series: one statement per table; the project counter's triggers count them as any
 * insert). The deliveries are `succeeded`, so the delivery worker has nothing to do with them.
 */
export async function seedBigTenant(
  baseUrl: string,
  env: Record<string, string>,
  dbUrl: string,
  scopes: string,
  log: (msg: string) => void,
): Promise<BigTenant> {
  const big = await seedTenant(baseUrl, env, { tenant: 'Big tenant', client: 'benchmark' }, scopes);
  const small = await seedTenant(
    baseUrl,
    env,
    { tenant: 'Small tenant', client: 'benchmark' },
    scopes,
  );
  const hook = await http(baseUrl, 'POST', '/api/v1/webhooks', {
    token: big.token,
    body: { name: 'bench', endpoint_url: 'https://example.invalid/bench', events: ['*'] },
  });
  if (hook.status !== 201) throw new Error(`webhook: status ${hook.status}`);
  const webhookId = (hook.body as { webhookId: number }).webhookId;

  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const step = async (what: string, sql: string, params: unknown[]): Promise<pg.QueryResult> => {
    const t = Date.now();
    const r = await client.query(sql, params);
    log(`big tenant: ${what} (${Date.now() - t} ms)`);
    return r;
  };
  try {
    await step(
      `${BIG.smallProjects} projects (small tenant)`,
      `INSERT INTO projects (tenant_id, name) SELECT $1, 'Small project ' || n
         FROM generate_series(1, $2::int) n`,
      [small.tenantId, BIG.smallProjects],
    );
    await step(
      `${BIG.projects} projects`,
      `INSERT INTO projects (tenant_id, name, description) SELECT $1, 'Big project ' || n, 'bulk'
         FROM generate_series(1, $2::int) n`,
      [big.tenantId, BIG.projects],
    );
    const [{ id: projectId }] = (
      await client.query<{ id: number }>(
        'SELECT min(id) AS id FROM projects WHERE tenant_id = $1',
        [big.tenantId],
      )
    ).rows as [{ id: number }];
    await step(
      `${BIG.documents} documents in project ${projectId}`,
      `INSERT INTO documents (tenant_id, project_id, title) SELECT $1, $2, 'Bulk document ' || n
         FROM generate_series(1, $3::int) n`,
      [big.tenantId, projectId, BIG.documents],
    );
    const [{ id: documentId }] = (
      await client.query<{ id: number }>(
        'SELECT min(id) AS id FROM documents WHERE project_id = $1',
        [projectId],
      )
    ).rows as [{ id: number }];
    await step(
      `${BIG.versions} versions of document ${documentId}`,
      `INSERT INTO document_versions (tenant_id, document_id, number, content, content_hash, source)
       SELECT $1, $2, n, jsonb_build_object('revision', n, 'body', repeat('x', 200)),
              lpad(md5(n::text), 64, '0'), 'platform'
         FROM generate_series(1, $3::int) n`,
      [big.tenantId, documentId, BIG.versions],
    );
    await client.query(
      `UPDATE documents SET current_version_id =
         (SELECT max(id) FROM document_versions WHERE document_id = $1) WHERE id = $1`,
      [documentId],
    );
    await step(
      `${BIG.events} events`,
      `INSERT INTO events (event_id, tenant_id, type, payload)
       SELECT 'evt_bench_' || $1::int || '_' || n, $1::int, 'document.checked_in', '{}'::jsonb
         FROM generate_series(1, $2::int) n`,
      [big.tenantId, BIG.events],
    );
    const deliveries = BIG.events * BIG.deliveriesPerEvent;
    await step(
      `${deliveries} deliveries`,
      `INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, status, attempts,
                                       last_attempt_at, last_response_status)
       SELECT $1, $2, e.id, 'succeeded', 1, now(), 200
         FROM events e CROSS JOIN generate_series(1, $3::int) g
        WHERE e.tenant_id = $1`,
      [big.tenantId, webhookId, BIG.deliveriesPerEvent],
    );
    await step(
      'VACUUM ANALYZE',
      'VACUUM ANALYZE projects, documents, document_versions, events, webhook_deliveries',
      [],
    );
    // the last pages of two walks: the cursor a client reaches after walking all the others
    const [{ id: oldest }] = (
      await client.query<{ id: string }>(
        `SELECT id FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY id LIMIT 1 OFFSET 50`,
        [big.tenantId],
      )
    ).rows as [{ id: string }];
    const [{ id: lastDoc }] = (
      await client.query<{ id: number }>(
        `SELECT id FROM documents WHERE project_id = $1 ORDER BY id DESC LIMIT 1 OFFSET 1000`,
        [projectId],
      )
    ).rows as [{ id: number }];
    return {
      token: big.token,
      smallToken: small.token,
      projectId,
      documentId,
      deliveries,
      lastDeliveryPage: Cursor.encode({ tenantId: big.tenantId, list: 'webhook_deliveries' }, [
        Number(oldest),
      ]),
      lastDocumentPage: Cursor.encode(
        { tenantId: big.tenantId, list: 'project.documents', scope: [projectId] },
        [lastDoc],
      ),
    };
  } finally {
    await client.end();
  }
}
