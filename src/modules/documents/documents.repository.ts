import { Injectable } from '@nestjs/common';
import { fragment, type Sql, sql, type Statement } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { DocumentVersion, VersionSource } from './entities/document-version.entity.js';
import type { JsonbParam } from '../../common/http/canonical-json.js';

/** A document with its current version, as `documentRef` reads it. */
export interface DocumentRefRow {
  id: number;
  project_id: number;
  version_id: number;
  hash: string;
}
/** A version as `findVersion` reads it, named as the entity names its members. */
export type VersionRow = Pick<
  DocumentVersion,
  'id' | 'documentId' | 'number' | 'content' | 'contentHash' | 'createdAt'
>;

/** A version as its insert returns it. */
export interface InsertedVersionRow {
  id: number;
  number: number;
  created_at: Date;
}

/** The next version of a locked document, drawn before it is written. */
export interface NextVersionRow {
  id: number;
  number: number;
}
/**
 * The SQL of documents and their versions: locks, references, new versions. With the platform
 * and read repositories beside it, the only places of the documents context that hold SQL or
 * call TypeORM.
 */
@Injectable()
export class DocumentsRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * Locks the document row in a statement of its own: a join locked FOR UPDATE that waits for a
   * concurrent version is re-checked against the version row it read before the wait and returns
   * no row, which would answer 404 for a document that exists; a scalar subquery instead would
   * read the new version with the old snapshot and answer a NULL hash. The next statement
   * (`documentRef`) takes a fresh snapshot and sees the version that committed during the wait.
   * One row when the document is the tenant's.
   */
  lockRow(tenantId: number, documentId: number, lock: 'FOR UPDATE' | 'FOR SHARE'): Statement {
    return sql`SELECT 1 FROM documents WHERE tenant_id = ${tenantId} AND id = ${documentId} ${fragment(lock)}`;
  }

  /** The document and its current version; no row for an unknown or foreign document. */
  documentRef(tenantId: number, documentId: number): Statement<DocumentRefRow> {
    return sql<DocumentRefRow>`
  SELECT d.id, d.project_id, v.id AS version_id, v.content_hash AS hash
    FROM documents d
    JOIN document_versions v ON v.id = d.current_version_id AND v.tenant_id = d.tenant_id
   WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId}`;
  }

  /**
   * The next version's id (drawn now, so the statement that writes it can also point the document
   * and its events at it) and number. Read after `lockRow` FOR UPDATE, which keeps both valid.
   */
  nextVersion(tenantId: number, documentId: number): Statement<NextVersionRow> {
    return sql<NextVersionRow>`
  SELECT nextval('document_versions_id_seq')::int AS id,
         (SELECT COALESCE(MAX(number), 0) + 1 FROM document_versions
           WHERE tenant_id = ${tenantId} AND document_id = ${documentId}) AS number`;
  }

  /**
   * CTEs (`new_version`, `new_current`) for another context's statement: the locked document's
   * version `next`, its content and hash copied by `from` (a SELECT of `content`, `content_hash`,
   * one row) rather than sent again, made the current one (the foreign key is deferred, so the
   * document may name the version its sibling CTE inserts).
   */
  nextVersionCtes(
    tenantId: number,
    documentId: number,
    next: NextVersionRow,
    from: Sql,
    source: VersionSource,
  ): Sql {
    return sql`new_version AS (
      INSERT INTO document_versions (id, tenant_id, document_id, number, content, content_hash,
                                     source)
      SELECT ${next.id}, ${tenantId}, ${documentId}, ${next.number}, f.content, f.content_hash,
             ${source}
        FROM (${from}) f
      RETURNING id
    ), new_current AS (
      UPDATE documents SET current_version_id = ${next.id}, updated_at = now()
       WHERE tenant_id = ${tenantId} AND id = ${documentId}
      RETURNING id
    )`;
  }

  /** Inside a tenant transaction: `lockRow` FOR UPDATE; false for an unknown or foreign document. */
  async lockForUpdate(tenantId: number, documentId: number): Promise<boolean> {
    const locked = await this.tx.query(this.lockRow(tenantId, documentId, 'FOR UPDATE'));
    return locked.length > 0;
  }

  /** Inside a tenant transaction: `documentRef`'s row. */
  async findRef(tenantId: number, documentId: number): Promise<DocumentRefRow | undefined> {
    const rows = await this.tx.query(this.documentRef(tenantId, documentId));
    return rows[0];
  }

  /** A boolean SQL expression: the document is the tenant's (for another context's statement). */
  documentExists(tenantId: number, documentId: number): Sql {
    return sql`EXISTS (SELECT 1 FROM documents WHERE tenant_id = ${tenantId} AND id = ${documentId})`;
  }

  /** Inside a tenant transaction: one version of a document, or null. */
  async findVersion(
    tenantId: number,
    documentId: number,
    versionId: number,
  ): Promise<VersionRow | null> {
    const [row] = await this.tx.query(sql<VersionRow>`
      SELECT id, document_id AS "documentId", number, content, content_hash AS "contentHash",
             created_at AS "createdAt"
        FROM document_versions
       WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND id = ${versionId}`);
    return row ?? null;
  }

  /** Inside a tenant transaction: a new active document without a version yet; its id. */
  async insertDocument(tenantId: number, projectId: number, title: string): Promise<number> {
    const [row] = await this.tx.query(sql<{ id: number }>`
      INSERT INTO documents (tenant_id, project_id, title, status, current_version_id)
      VALUES (${tenantId}, ${projectId}, ${title}, 'active', NULL)
      RETURNING id`);
    return row!.id;
  }

  /**
   * Inside a tenant transaction, the document row locked (or just created): its next version,
   * numbered after the last, made the document's current one.
   */
  async insertVersion(
    tenantId: number,
    documentId: number,
    version: { json: JsonbParam; hash: string; source: VersionSource },
  ): Promise<InsertedVersionRow> {
    const { json, hash, source } = version;
    const [inserted] = await this.tx.query(sql<InsertedVersionRow>`
      INSERT INTO document_versions (tenant_id, document_id, number, content, content_hash, source)
         SELECT ${tenantId}, ${documentId}, COALESCE(MAX(number), 0) + 1, ${json}::jsonb, ${hash}, ${source}
           FROM document_versions WHERE tenant_id = ${tenantId} AND document_id = ${documentId}
         RETURNING id, number, created_at`);
    const row = inserted!;
    await this.tx.query(sql`
      UPDATE documents SET current_version_id = ${row.id}, updated_at = now()
        WHERE tenant_id = ${tenantId} AND id = ${documentId}`);
    return row;
  }
}
