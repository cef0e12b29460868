import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { legacyStatement } from '../../common/database/legacy-statement.js';
import { type Batch, fragment, sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError } from '../../common/http/app-error.js';
import { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../common/pagination/cursor.js';
import {
  cursorPageOf,
  childPageSql,
  firstKey,
  keysetAfter,
  keysetPageSql,
  type KeysetPageRow,
} from '../../common/pagination/keyset-page.js';
import { MAX_PAGE_LIMIT } from '../../common/pagination/page-query.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { contentHash } from './content-hash.js';
import { DocumentVersion, type VersionSource } from './entities/document-version.entity.js';
import { DocumentEntity, type DocumentStatus } from './entities/document.entity.js';

/** Called inside the transaction that created a version, after its row exists. */
export type VersionCreatedListener = (
  tenantId: number,
  documentId: number,
  versionId: number,
) => Promise<void>;

export interface DocumentRef {
  documentId: number;
  projectId: number;
  currentVersionId: number;
  currentContentHash: string;
}

export interface VersionView {
  versionId: number;
  documentId: number;
  number: number;
  content: Record<string, unknown>;
  content_hash: string;
  created_at: string;
}

export interface VersionIndexEntry {
  versionId: number;
  number: number;
  content_hash: string;
  created_at: string;
  source: VersionSource;
}

export interface DocumentSummary {
  documentId: number;
  projectId: number;
  title: string;
  status: DocumentStatus;
  current_version_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface DocumentView extends DocumentSummary {
  versions: VersionIndexEntry[];
  versions_next_cursor: string | null;
}

/** Entries of the version index in `GET /documents/{documentId}`; the rest through `/versions`. */
export const VERSION_INDEX_LIMIT = MAX_PAGE_LIMIT;

/**
 * "The existing document service" of SPEC.md: documents and their versions. `createVersion` is the
 * only code that creates versions (platform edits and accepted external revisions alike). Unless a
 * method says otherwise it must run inside `TenantTransactions.run`, whose transaction it joins.
 */
@Injectable()
export class DocumentService {
  private readonly versionListeners: VersionCreatedListener[] = [];
  private readonly documentPageSql: string;

  constructor(
    private readonly tx: TenantTransactions,
    private readonly events: WebhookOutbox,
    private readonly projects: ProjectsService,
  ) {
    this.documentPageSql = documentPageSql(projects.projectExistsSql('$1', '$2'));
  }

  /** NotFoundError('document') for an unknown or foreign document. */
  async requireDocument(tenantId: number, documentId: number): Promise<DocumentRef> {
    return this.documentRef(tenantId, documentId, null);
  }

  /**
   * For another context's one-statement reads (a document's candidate revisions): an SQL
   * expression, true when the document is the tenant's. `tenant` and `document` are placeholders.
   */
  documentExistsSql(tenant: string, document: string): string {
    return `EXISTS (SELECT 1 FROM documents WHERE tenant_id = ${tenant} AND id = ${document})`;
  }

  /** As `requireDocument`, holding the document row (`FOR UPDATE`) until the transaction ends. */
  async lockDocument(tenantId: number, documentId: number): Promise<DocumentRef> {
    return this.documentRef(tenantId, documentId, 'FOR UPDATE');
  }

  /**
   * As `lockDocument`, but `FOR SHARE`, and read in the round trip that opens the transaction
   * (`TenantTransactions.runOpening`): holders do not wait for each other, only for (and block)
   * whoever takes the row `FOR UPDATE` — a new version, a checkout. Stagings take this, so many
   * can be staged on one document at once while none can slip past a version being created.
   * Its value throws 404 for an unknown or foreign document.
   */
  shareLockedDocument(tenantId: number, documentId: number): Batch<DocumentRef> {
    return {
      statements: [lockRow(tenantId, documentId, 'FOR SHARE'), documentRef(tenantId, documentId)],
      read: ([locked, refs]) => {
        if (!locked?.length) throw new NotFoundError('document');
        return documentRefOf(refs?.[0] as DocumentRefRow | undefined);
      },
    };
  }

  async getVersion(
    tenantId: number,
    documentId: number,
    versionId: number,
  ): Promise<VersionView | null> {
    const row = await this.tx
      .repo(DocumentVersion)
      .findOneBy({ tenantId, documentId, id: versionId });
    return row ? versionView(row) : null;
  }

  async createVersion(
    tenantId: number,
    documentId: number,
    content: Record<string, unknown>,
    source: VersionSource,
  ): Promise<VersionView> {
    const doc = await this.lockDocument(tenantId, documentId);
    const version = await this.insertVersion(
      tenantId,
      doc.documentId,
      doc.projectId,
      content,
      source,
    );
    for (const listener of this.versionListeners) {
      await listener(tenantId, documentId, version.versionId);
    }
    return version;
  }

  /**
   * Lets a context that depends on documents react to every new version inside the creating
   * transaction (the revisions module supersedes candidates staged on an older base), without
   * this module depending on it.
   */
  onVersionCreated(listener: VersionCreatedListener): void {
    this.versionListeners.push(listener);
  }

  /**
   * Creates a document with version 1 (source `platform`). Opens its own tenant transaction (or
   * joins the caller's): used by the admin CLI and the demo seed.
   */
  createDocument(
    tenantId: number,
    projectId: number,
    title: string,
    content: Record<string, unknown>,
  ): Promise<{ documentId: number; versionId: number }> {
    return this.tx.run(tenantId, async () => {
      if (!(await this.projects.findProject(tenantId, projectId))) {
        throw new NotFoundError('project');
      }
      const doc = await this.tx
        .repo(DocumentEntity)
        .save({ tenantId, projectId, title, status: 'active' as const, currentVersionId: null });
      const version = await this.insertVersion(tenantId, doc.id, projectId, content, 'platform');
      return { documentId: doc.id, versionId: version.versionId };
    });
  }

  /**
   * GET /documents/{documentId}: the document with its version index, ascending by number, at
   * most VERSION_INDEX_LIMIT entries; `versions_next_cursor` continues the index through
   * GET /documents/{documentId}/versions (null when the index is whole). The hottest read of the
   * API: PostgreSQL builds the whole body in one statement, sent with its transaction in one
   * round trip.
   */
  async getDocument(tenantId: number, documentId: number): Promise<JsonText<DocumentView>> {
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<{
        /** The JSON text of the document up to its last member, which is added here. */
        doc: string;
        last_number: number | null;
        more: boolean;
      }>(DOCUMENT_VIEW_SQL, [tenantId, documentId]),
    );
    const row = rows[0];
    if (!row) throw new NotFoundError('document');
    const next =
      row.more && row.last_number !== null
        ? Cursor.encode(versionsList(tenantId, documentId), [row.last_number])
        : null;
    return new JsonText(`${row.doc},"versions_next_cursor":${JSON.stringify(next)}}`);
  }

  /**
   * GET /documents/{documentId}/versions: the version index entries, ascending by number, one
   * page; 404 for an unknown or foreign document. A cursor of the document read's
   * `versions_next_cursor` continues here.
   */
  async listVersions(
    tenantId: number,
    documentId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<VersionIndexEntry>>> {
    const identity = versionsList(tenantId, documentId);
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<VersionIndexEntry> & { found: boolean }>(VERSION_PAGE_SQL, [
        tenantId,
        documentId,
        after,
        page.limit,
      ]),
    );
    if (!rows[0]?.found) throw new NotFoundError('document');
    return cursorPageOf(rows[0], identity);
  }

  /** GET /documents/{documentId}/versions/{versionId}: 404 for unknown, foreign or mismatched. */
  readVersion(tenantId: number, documentId: number, versionId: number): Promise<VersionView> {
    return this.tx.run(tenantId, async () => {
      const version = await this.getVersion(tenantId, documentId, versionId);
      if (!version) throw new NotFoundError('version');
      return version;
    });
  }

  /**
   * GET /projects/{projectId}/documents, ascending documentId, one page, without versions; 400
   * `project_not_found` for an unknown or foreign project. One statement in one round trip.
   */
  async listProjectDocuments(
    tenantId: number,
    projectId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<DocumentSummary>>> {
    const identity = { tenantId, list: 'project.documents', scope: [projectId] };
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<DocumentSummary> & { found: boolean }>(this.documentPageSql, [
        tenantId,
        projectId,
        after,
        page.limit,
      ]),
    );
    if (!rows[0]?.found) throw this.projects.projectNotFound();
    return cursorPageOf(rows[0], identity);
  }

  private async documentRef(
    tenantId: number,
    documentId: number,
    lock: 'FOR UPDATE' | null,
  ): Promise<DocumentRef> {
    if (lock) {
      const locked = await this.tx.query(lockRow(tenantId, documentId, lock));
      if (locked.length === 0) throw new NotFoundError('document');
    }
    const rows = await this.tx.query(documentRef(tenantId, documentId));
    return documentRefOf(rows[0]);
  }

  /** The document row must already be locked (or just created) by this transaction. */
  private async insertVersion(
    tenantId: number,
    documentId: number,
    projectId: number,
    content: Record<string, unknown>,
    source: VersionSource,
  ): Promise<VersionView> {
    const hash = contentHash(content);
    const inserted: Array<{ id: number; number: number; created_at: Date }> =
      await this.tx.manager.query(
        `INSERT INTO document_versions (tenant_id, document_id, number, content, content_hash, source)
         SELECT $1, $2, COALESCE(MAX(number), 0) + 1, $3::jsonb, $4, $5
           FROM document_versions WHERE tenant_id = $1 AND document_id = $2
         RETURNING id, number, created_at`,
        [tenantId, documentId, JSON.stringify(content), hash, source],
      );
    const row = inserted[0]!;
    await this.tx.manager.query(
      `UPDATE documents SET current_version_id = $3, updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, documentId, row.id],
    );
    await this.events.publish(tenantId, 'document.version_created', {
      documentId,
      projectId,
      versionId: row.id,
      number: row.number,
      content_hash: hash,
    });
    return {
      versionId: row.id,
      documentId,
      number: row.number,
      content,
      content_hash: hash,
      created_at: row.created_at.toISOString(),
    };
  }
}

function versionView(v: DocumentVersion): VersionView {
  return {
    versionId: v.id,
    documentId: v.documentId,
    number: v.number,
    content: v.content,
    content_hash: v.contentHash,
    created_at: v.createdAt.toISOString(),
  };
}

/** Timestamps as `toISOString()` writes them (UTC, milliseconds), so every route agrees. */
/**
 * Locks the document row in a statement of its own: a join locked FOR UPDATE that waits for a
 * concurrent version is re-checked against the version row it read before the wait and returns
 * no row, which would answer 404 for a document that exists; a scalar subquery instead would read
 * the new version with the old snapshot and answer a NULL hash. The next statement
 * (documentRef) takes a fresh snapshot and sees the version that committed during the wait.
 */
const lockRow = (tenantId: number, documentId: number, lock: 'FOR UPDATE' | 'FOR SHARE') =>
  sql`SELECT 1 FROM documents WHERE tenant_id = ${tenantId} AND id = ${documentId} ${fragment(lock)}`;

const documentRef = (tenantId: number, documentId: number) => sql<DocumentRefRow>`
  SELECT d.id, d.project_id, v.id AS version_id, v.content_hash AS hash
    FROM documents d
    JOIN document_versions v ON v.id = d.current_version_id AND v.tenant_id = d.tenant_id
   WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId}`;

interface DocumentRefRow {
  id: number;
  project_id: number;
  version_id: number;
  hash: string;
}

function documentRefOf(row: DocumentRefRow | undefined): DocumentRef {
  if (!row) throw new NotFoundError('document');
  return {
    documentId: row.id,
    projectId: row.project_id,
    currentVersionId: row.version_id,
    currentContentHash: row.hash,
  };
}

/** One entry of the version index, as JSON text, over `alias`. */
const VERSION_ENTRY = (alias: string): string =>
  jsonObjectText({
    versionId: v.integer(`${alias}.id`),
    number: v.integer(`${alias}.number`),
    content_hash: v.text(`${alias}.content_hash`),
    created_at: v.timestamp(`${alias}.created_at`),
    source: v.text(`${alias}.source`),
  });

/**
 * The document and the first VERSION_INDEX_LIMIT entries of its index (one more is read, only to
 * tell whether the index goes on), by the (document_id, number) index, as the JSON text of the
 * response without its last member, `versions_next_cursor` (and its closing brace).
 * $1 tenant, $2 document.
 */
const DOCUMENT_VIEW_SQL = `
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
    SELECT string_agg(${VERSION_ENTRY('v')}, ',' ORDER BY v.number)
             FILTER (WHERE v.n <= ${VERSION_INDEX_LIMIT}) AS versions,
           max(v.number) FILTER (WHERE v.n <= ${VERSION_INDEX_LIMIT}) AS last_number,
           count(*) > ${VERSION_INDEX_LIMIT} AS more
      FROM (SELECT v.*, row_number() OVER (ORDER BY v.number) AS n
              FROM (SELECT id, number, content_hash, created_at, source FROM document_versions
                     WHERE tenant_id = d.tenant_id AND document_id = d.id
                     ORDER BY number LIMIT ${VERSION_INDEX_LIMIT + 1}) v) v
  ) ix ON true
  WHERE d.tenant_id = $1 AND d.id = $2`;

/** $1 tenant, $2 document, $3 the number after which the page starts, $4 limit. */
const VERSION_PAGE_SQL = `
  SELECT EXISTS (SELECT 1 FROM documents WHERE tenant_id = $1 AND id = $2) AS found, page.*
    FROM (${keysetPageSql({
      rows: `SELECT v.number AS k, v.id, v.number, v.content_hash, v.created_at, v.source
               FROM document_versions v
              WHERE v.tenant_id = $1 AND v.document_id = $2
                AND ${keysetAfter('v.number', 'ASC', '$3::bigint')}
              ORDER BY v.number LIMIT $4::int + 1`,
      item: VERSION_ENTRY('r'),
      order: 'ASC',
      limit: '$4::int',
    })}) page`;

/**
 * `projectExists`: the projects context's test that $2 is a project of tenant $1.
 * $1 tenant, $2 project, $3 the documentId after which the page starts, $4 limit.
 * Each item is the row's `summary_json`, the `DocumentSummary` JSON text the documents trigger of
 * migration 1764002900000 keeps at every write: the page formats no timestamp and escapes no
 * title per request, it only concatenates stored texts.
 */
const documentPageSql = (projectExists: string): string =>
  childPageSql({
    parentFound: projectExists,
    table: 'documents',
    alias: 'd',
    parentColumn: 'project_id',
    columns: 'd.summary_json',
    item: 'r.summary_json',
  });

/** The list of a document's versions: its cursors are also the document read's. */
function versionsList(tenantId: number, documentId: number): ListIdentity {
  return { tenantId, list: 'document.versions', scope: [documentId] };
}
