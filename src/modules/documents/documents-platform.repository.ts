import { Injectable } from '@nestjs/common';
import { sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { JsonbParam } from '../../common/http/canonical-json.js';

/** What the platform's document upsert did: `version_*` only when it created the document. */
export interface DocumentUpsertRow {
  id: number;
  project_id: number;
  created: boolean;
  version_id: number | null;
  version_number: number | null;
}

/** A document as the platform API answers it, with its current version's hash. */
export interface PlatformDocumentRow {
  id: number;
  project_id: number;
  external_id: string | null;
  title: string;
  status: string;
  current_version_id: number;
  content_hash: string;
  created_at: Date;
  updated_at: Date;
}

/** The SQL of the platform API's document writes: upserts by the platform's ids, their reads. */
@Injectable()
export class DocumentsPlatformRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * Inside a tenant transaction, the project the tenant's: the document the platform names
   * `externalId`, created with its first version (source `platform`) or updated (title, project),
   * in ONE statement. The version's id is drawn as the document is inserted, so the document points
   * at it from its first row (the foreign key is deferred to the commit) and no second write of
   * the document is needed. On update the sequence value is drawn and dropped: only ids are lost.
   * The partial unique index of migration 1764003300000 arbitrates concurrent upserts of one id;
   * `xmax = 0` holds for a row this statement inserted, not for one it updated.
   */
  async upsertDocument(
    tenantId: number,
    projectId: number,
    externalId: string,
    title: string,
    first: { json: JsonbParam; hash: string },
  ): Promise<DocumentUpsertRow> {
    const [row] = await this.tx.query(sql<DocumentUpsertRow>`
      WITH d AS (
        INSERT INTO documents AS d (tenant_id, project_id, external_id, title, status,
                                    current_version_id)
        VALUES (${tenantId}, ${projectId}, ${externalId}, ${title}, 'active',
                nextval('document_versions_id_seq'))
        ON CONFLICT (tenant_id, external_id) WHERE external_id IS NOT NULL DO UPDATE
          SET title = EXCLUDED.title, project_id = EXCLUDED.project_id, updated_at = now()
        RETURNING d.id, d.project_id, d.current_version_id, (d.xmax = 0) AS created
      ), v AS (
        INSERT INTO document_versions (id, tenant_id, document_id, number, content, content_hash,
                                       source)
        SELECT d.current_version_id, ${tenantId}, d.id, 1, ${first.json}::jsonb, ${first.hash},
               'platform'
          FROM d WHERE d.created
        RETURNING id, number
      )
      SELECT d.id, d.project_id, d.created, v.id AS version_id, v.number AS version_number
        FROM d LEFT JOIN v ON true`);
    return row!;
  }

  /**
   * `upsertDocument` for many documents in ONE statement (a bulk import's): the ids the platform
   * gives must differ from each other (one statement cannot write a row twice). Rows come back
   * with their `external_id`, in no particular order.
   */
  async upsertDocuments(
    tenantId: number,
    docs: ReadonlyArray<{
      projectId: number;
      externalId: string;
      title: string;
      first: { json: string; hash: string };
    }>,
  ): Promise<Array<DocumentUpsertRow & { external_id: string }>> {
    const projectIds = docs.map((d) => d.projectId);
    const externalIds = docs.map((d) => d.externalId);
    const titles = docs.map((d) => d.title);
    const jsons = docs.map((d) => d.first.json);
    const hashes = docs.map((d) => d.first.hash);
    return this.tx.query(sql<DocumentUpsertRow & { external_id: string }>`
      WITH input AS (
        SELECT * FROM unnest(${projectIds}::int[], ${externalIds}::text[], ${titles}::text[],
                             ${jsons}::text[], ${hashes}::text[])
                 WITH ORDINALITY AS i(project_id, external_id, title, json, hash, n)
      ), d AS (
        INSERT INTO documents AS d (tenant_id, project_id, external_id, title, status,
                                    current_version_id)
        SELECT ${tenantId}, i.project_id, i.external_id, i.title, 'active',
               nextval('document_versions_id_seq')
          FROM input i ORDER BY i.n
        ON CONFLICT (tenant_id, external_id) WHERE external_id IS NOT NULL DO UPDATE
          SET title = EXCLUDED.title, project_id = EXCLUDED.project_id, updated_at = now()
        RETURNING d.id, d.project_id, d.external_id, d.current_version_id, (d.xmax = 0) AS created
      ), v AS (
        INSERT INTO document_versions (id, tenant_id, document_id, number, content, content_hash,
                                       source)
        SELECT d.current_version_id, ${tenantId}, d.id, 1, i.json::jsonb, i.hash, 'platform'
          FROM d JOIN input i ON i.external_id = d.external_id
         WHERE d.created
        RETURNING id, number
      )
      SELECT d.id, d.project_id, d.external_id, d.created, v.id AS version_id,
             v.number AS version_number
        FROM d LEFT JOIN v ON v.id = d.current_version_id`);
  }

  /**
   * Inside a tenant transaction, the project the tenant's: the title and project of the document
   * the platform names `externalId`; undefined when there is none (nothing is created).
   */
  async updateDocumentByExternalId(
    tenantId: number,
    projectId: number,
    externalId: string,
    title: string,
  ): Promise<{ id: number } | undefined> {
    const [row] = await this.tx.query(sql<{ id: number }>`
      UPDATE documents SET title = ${title}, project_id = ${projectId}, updated_at = now()
       WHERE tenant_id = ${tenantId} AND external_id = ${externalId}
      RETURNING id`);
    return row;
  }

  /** Inside a tenant transaction: the document with its current version's hash, or undefined. */
  async platformDocument(
    tenantId: number,
    documentId: number,
  ): Promise<PlatformDocumentRow | undefined> {
    const [row] = await this.tx.query(sql<PlatformDocumentRow>`
      SELECT d.id, d.project_id, d.external_id, d.title, d.status, d.current_version_id,
             v.content_hash, d.created_at, d.updated_at
        FROM documents d
        JOIN document_versions v ON v.id = d.current_version_id AND v.tenant_id = d.tenant_id
       WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId}`);
    return row;
  }

  /** Inside a system transaction (owner role, across tenants): the tenant of a document. */
  async tenantOfDocument(documentId: number): Promise<number | undefined> {
    const [row] = await this.tx.query(sql<{ tenant_id: number }>`
      SELECT tenant_id FROM documents WHERE id = ${documentId}`);
    return row?.tenant_id;
  }
}
