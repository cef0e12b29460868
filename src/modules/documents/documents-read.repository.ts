import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { fragment, type Sql, sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { PageReads } from '../../common/database/page-reads.js';
import { type Held, holdColumns } from '../../common/http/json-text.js';
import {
  afterKey,
  type ChildPageRow,
  type ChildPageText,
  childPage,
  keysetPage,
} from '../../common/pagination/keyset-page.js';
import {
  type DocumentSummary,
  VERSION_INDEX_LIMIT,
  type VersionIndexEntry,
} from './document-views.js';
import { documentSummaryMembers } from './document-summary.shape.js';

/** The row of `DOCUMENT_VIEW`. */
interface DocumentViewText {
  /** The JSON text of the document up to its last member, `versions_next_cursor`. */
  doc: string;
  last_number: number | null;
  more: boolean;
}

/** What `documentView` answers: `doc` held (`holdDoc`), readable only until its response is sent. */
export type DocumentViewRow = Held<DocumentViewText, 'doc'>;

/** The page to read: the key after which it starts, and its size. */
export interface PageAfter {
  after: number;
  limit: number;
}
/** The SQL of the documents' read API: a document with its version index, and pages of lists. */
@Injectable()
export class DocumentsReadRepository {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly pages: PageReads,
  ) {}

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
   * 1764003000000 keeps: no timestamp is formatted per request. `documentExists` is the
   * documents repository's test that the document is the tenant's.
   */
  async versionPage(
    documentExists: Sql,
    tenantId: number,
    documentId: number,
    page: PageAfter,
  ): Promise<ChildPageRow<VersionIndexEntry> | undefined> {
    const { after, limit } = page;
    const rows = await this.pages.read(
      tenantId,
      limit,
      sql<ChildPageText<VersionIndexEntry>>`
  SELECT ${documentExists} AS found, page.*
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
  ): Promise<ChildPageRow<DocumentSummary> | undefined> {
    const rows = await this.pages.read(
      tenantId,
      page.limit,
      sql<ChildPageText<DocumentSummary>>`${childPage({
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
    ...documentSummaryMembers('d'),
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
