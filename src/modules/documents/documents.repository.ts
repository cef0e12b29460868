import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { fragment, type Sql, sql, type Statement } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { PageReads } from '../../common/database/page-reads.js';
import { type Held, holdColumns } from '../../common/http/json-text.js';
import {
  afterKey,
  childPage,
  type KeysetPageText,
  type PageRow,
  keysetPage,
} from '../../common/pagination/keyset-page.js';
import {
  type DocumentSummary,
  VERSION_INDEX_LIMIT,
  type VersionIndexEntry,
} from './document-views.js';
import { DocumentVersion, type VersionSource } from './entities/document-version.entity.js';
import { DocumentEntity } from './entities/document.entity.js';
import type { JsonbParam } from '../../common/http/canonical-json.js';

/** A document with its current version, as `documentRef` reads it. */
export interface DocumentRefRow {
  id: number;
  project_id: number;
  version_id: number;
  hash: string;
}

/** The row of `DOCUMENT_VIEW`. */
interface DocumentViewText {
  /** The JSON text of the document up to its last member, `versions_next_cursor`. */
  doc: string;
  last_number: number | null;
  more: boolean;
}

/** What `documentView` answers: `doc` held (`holdDoc`), readable only until its response is sent. */
export type DocumentViewRow = Held<DocumentViewText, 'doc'>;

/** A page of a document's version index, and whether the document is the tenant's. */
type VersionPageText = KeysetPageText<VersionIndexEntry> & { found: boolean };
export type VersionPageRow = PageRow<VersionPageText>;

/** A page of a project's documents, and whether the project is the tenant's. */
type DocumentPageText = KeysetPageText<DocumentSummary> & { found: boolean };
export type DocumentPageRow = PageRow<DocumentPageText>;

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

/** The page to read: the key after which it starts, and its size. */
export interface PageAfter {
  after: number;
  limit: number;
}

/** The only place of the documents context that holds SQL or calls TypeORM. */
@Injectable()
export class DocumentsRepository {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly pages: PageReads,
  ) {}

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
  findVersion(
    tenantId: number,
    documentId: number,
    versionId: number,
  ): Promise<DocumentVersion | null> {
    return this.tx.repo(DocumentVersion).findOneBy({ tenantId, documentId, id: versionId });
  }

  /** Inside a tenant transaction: a new active document without a version yet. */
  insertDocument(tenantId: number, projectId: number, title: string): Promise<DocumentEntity> {
    return this.tx
      .repo(DocumentEntity)
      .save({ tenantId, projectId, title, status: 'active' as const, currentVersionId: null });
  }

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
    const row = await this.tx
      .repo(DocumentEntity)
      .findOne({ where: { id: documentId }, select: { id: true, tenantId: true } });
    return row?.tenantId;
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

  /**
   * The document and the first VERSION_INDEX_LIMIT entries of its index, as the JSON text of the
   * response without its last member (`DOCUMENT_VIEW`), read in one round trip.
   */
  async documentView(tenantId: number, documentId: number): Promise<DocumentViewRow | undefined> {
    const rows = await this.tx.readOnce(
      tenantId,
      sql<DocumentViewText>`${DOCUMENT_VIEW}
  WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId}`,
      holdDoc,
    );
    return rows[0];
  }

  /**
   * A page of a document's version index, ascending by number, in one round trip. Each entry is
   * the row's `index_json`, the `VersionIndexEntry` JSON text the trigger of migration
   * 1764003000000 keeps: no timestamp is formatted per request.
   */
  async versionPage(
    tenantId: number,
    documentId: number,
    page: PageAfter,
  ): Promise<VersionPageRow | undefined> {
    const { after, limit } = page;
    const rows = await this.pages.read(
      tenantId,
      limit,
      sql<VersionPageText>`
  SELECT ${this.documentExists(tenantId, documentId)} AS found, page.*
    FROM (${keysetPage({
      rows: sql`SELECT v.number AS k, v.index_json
               FROM document_versions v
              WHERE v.tenant_id = ${tenantId} AND v.document_id = ${documentId}
                AND ${afterKey('v.number', 'ASC', after)}
              ORDER BY v.number LIMIT ${limit}::int + 1`,
      item: 'r.index_json',
      order: 'ASC',
      limit,
    })}) page`,
    );
    return rows[0];
  }

  /**
   * A page of a project's documents, ascending by id, and whether the project is the tenant's
   * (`projectExists`, the projects context's test), in one statement read in one round trip.
   * Each item is the row's `summary_json`, the `DocumentSummary` JSON text the documents trigger of
   * migration 1764002900000 keeps at every write: the page formats no timestamp and escapes no
   * title per request, it only concatenates stored texts.
   */
  async projectDocumentPage(
    projectExists: Sql,
    tenantId: number,
    projectId: number,
    page: PageAfter,
  ): Promise<DocumentPageRow | undefined> {
    const rows = await this.pages.read(
      tenantId,
      page.limit,
      sql<DocumentPageText>`${childPage({
        parentFound: projectExists,
        table: 'documents',
        alias: 'd',
        parentColumn: 'project_id',
        columns: 'd.summary_json',
        item: 'r.summary_json',
        tenantId,
        parentId: projectId,
        ...page,
      })}`,
    );
    return rows[0];
  }
}

/**
 * The document and the first VERSION_INDEX_LIMIT entries of its index (one more is read, only to
 * tell whether the index goes on), by the (document_id, number) index, as the JSON text of the
 * response without its last member, `versions_next_cursor` (and its closing brace); the caller
 * adds which document (`WHERE`). Built from constants only.
 */
const DOCUMENT_VIEW = fragment(`
  SELECT left(${jsonObjectText({
    documentId: v.integer('d.id'),
    projectId: v.integer('d.project_id'),
    title: v.text('d.title'),
    status: v.text('d.status'),
    current_version_id: v.integer('d.current_version_id'),
    created_at: v.timestamp('d.created_at'),
    updated_at: v.timestamp('d.updated_at'),
    versions: v.raw(`'[' || COALESCE(ix.versions, '') || ']'`),
  })}, -1) AS doc,
    ix.last_number, COALESCE(ix.more, false) AS more
  FROM documents d
  LEFT JOIN LATERAL (
    SELECT string_agg(v.index_json, ',' ORDER BY v.number)
             FILTER (WHERE v.n <= ${VERSION_INDEX_LIMIT}) AS versions,
           max(v.number) FILTER (WHERE v.n <= ${VERSION_INDEX_LIMIT}) AS last_number,
           count(*) > ${VERSION_INDEX_LIMIT} AS more
      FROM (SELECT v.*, row_number() OVER (ORDER BY v.number) AS n
              FROM (SELECT number, index_json FROM document_versions
                     WHERE tenant_id = d.tenant_id AND document_id = d.id
                     ORDER BY number LIMIT ${VERSION_INDEX_LIMIT + 1}) v) v
  ) ix ON true`);

/** Holds the document's text (up to ~180 KB with a full index) from the driver until it is sent. */
const holdDoc = holdColumns(['doc']);
