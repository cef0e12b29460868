import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError } from '../../common/http/app-error.js';
import { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../common/pagination/cursor.js';
import { childListPage } from '../../common/pagination/keyset-page.js';
import { ProjectsService } from '../projects/projects.service.js';
import type {
  DocumentSummary,
  DocumentView,
  VersionIndexEntry,
  VersionView,
} from './document-views.js';
import { DocumentsReadRepository } from './documents-read.repository.js';
import { DocumentsService } from './documents.service.js';

/** The read API of documents (GET routes): documents, their version index, a version, a list. */
@Injectable()
export class DocumentsReadService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly projects: ProjectsService,
    private readonly repository: DocumentsReadRepository,
    private readonly documents: DocumentsService,
  ) {}

  /**
   * GET /documents/{documentId}: the document with its version index, ascending by number, at
   * most VERSION_INDEX_LIMIT entries; `versions_next_cursor` continues the index through
   * GET /documents/{documentId}/versions (null when the index is whole). The hottest read of the
   * API: PostgreSQL builds the whole body in one statement, sent with its transaction in one
   * round trip.
   */
  async getDocument(tenantId: number, documentId: number): Promise<JsonText<DocumentView>> {
    const row = await this.repository.documentView(tenantId, documentId);
    if (!row) throw new NotFoundError('document');
    const next =
      row.more && row.last_number !== null
        ? Cursor.encode(versionsList(tenantId, documentId), [row.last_number])
        : null;
    return new JsonText(row.doc, `,"versions_next_cursor":${JSON.stringify(next)}}`);
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
    return childListPage(
      versionsList(tenantId, documentId),
      page.cursor,
      (after) =>
        this.repository.versionPage(
          this.documents.documentExists(tenantId, documentId),
          tenantId,
          documentId,
          { after, limit: page.limit },
        ),
      () => new NotFoundError('document'),
    );
  }

  /** GET /documents/{documentId}/versions/{versionId}: 404 for unknown, foreign or mismatched. */
  readVersion(tenantId: number, documentId: number, versionId: number): Promise<VersionView> {
    return this.tx.run(tenantId, async () => {
      const version = await this.documents.getVersion(tenantId, documentId, versionId);
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
    return childListPage(
      { tenantId, list: 'project.documents', scope: [projectId] },
      page.cursor,
      (after) =>
        this.repository.projectDocumentPage(
          this.projects.projectExists(tenantId, projectId),
          tenantId,
          projectId,
          { after, limit: page.limit },
        ),
      () => this.projects.projectNotFound(),
    );
  }
}

/** The list of a document's versions: its cursors are also the document read's. */
function versionsList(tenantId: number, documentId: number): ListIdentity {
  return { tenantId, list: 'document.versions', scope: [documentId] };
}
