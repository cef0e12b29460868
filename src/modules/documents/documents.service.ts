import { Injectable } from '@nestjs/common';
import { type Batch, batchOf, batches, type Sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError } from '../../common/http/app-error.js';
import type { EventData } from '../events/event-catalog.js';
import { ProjectsService } from '../projects/projects.service.js';
import { contentHash } from './content-hash.js';
import type { DocumentRef, VersionView } from './document-views.js';
import { DocumentVersionWriter, type VersionCreatedListener } from './document-version-writer.js';
import {
  DocumentsRepository,
  type DocumentRefRow,
  type VersionRow,
} from './documents.repository.js';
import type { VersionSource } from './entities/document-version.entity.js';

/** A document held for its next version, and that version's id and number, drawn already. */
export interface LockedForVersion {
  doc: DocumentRef;
  next: { versionId: number; number: number };
}

export type { VersionCreatedListener } from './document-version-writer.js';

/**
 * The existing document service: documents and their versions. `addVersion` makes every later
 * version of platform edits, `nextVersionWrite` those of accepted external revisions. Unless a
 * method says otherwise it must run inside `TenantTransactions.run`, whose transaction it joins.
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly versions: DocumentVersionWriter,
    private readonly projects: ProjectsService,
    private readonly repository: DocumentsRepository,
  ) {}

  /** NotFoundError('document') for an unknown or foreign document. */
  async requireDocument(tenantId: number, documentId: number): Promise<DocumentRef> {
    return this.documentRef(tenantId, documentId, null);
  }

  /**
   * For another context's one-statement reads (a document's candidate revisions): a boolean SQL
   * expression, true when the document is the tenant's.
   */
  documentExists(tenantId: number, documentId: number): Sql {
    return this.repository.documentExists(tenantId, documentId);
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
    const { repository } = this;
    return {
      statements: [
        repository.lockRow(tenantId, documentId, 'FOR SHARE'),
        repository.documentRef(tenantId, documentId),
      ],
      read: ([locked, refs]) => {
        if (!locked?.length) throw new NotFoundError('document');
        return documentRefOf(refs?.[0] as DocumentRefRow | undefined);
      },
    };
  }

  /**
   * As `lockDocument`, read in the round trip that opens the transaction
   * (`TenantTransactions.runOpening`). Its value throws 404 for an unknown or foreign document.
   */
  lockedDocument(tenantId: number, documentId: number): Batch<DocumentRef> {
    const { repository } = this;
    return {
      statements: [
        repository.lockRow(tenantId, documentId, 'FOR UPDATE'),
        repository.documentRef(tenantId, documentId),
      ],
      read: ([locked, refs]) => {
        if (!locked?.length) throw new NotFoundError('document');
        return documentRefOf(refs?.[0] as DocumentRefRow | undefined);
      },
    };
  }

  /**
   * As `lockDocument`, read in the round trip that opens the transaction
   * (`TenantTransactions.runOpening`), with the next version's id and number (`nextVersionWrite`).
   * Its value throws 404 for an unknown or foreign document.
   */
  lockedForNextVersion(tenantId: number, documentId: number): Batch<LockedForVersion> {
    const next = batchOf(this.repository.nextVersion(tenantId, documentId), ([row]) => {
      if (!row) throw new Error('the next version was not drawn');
      return { versionId: row.id, number: row.number };
    });
    const both = batches(this.lockedDocument(tenantId, documentId), next);
    return {
      statements: both.statements,
      read: (rows) => {
        const [doc, version] = both.read(rows);
        return { doc, next: version };
      },
    };
  }

  /**
   * The next version of a document `lockedForNextVersion` holds, as CTEs for the caller's one
   * statement (content and hash copied by `from`, a SELECT of `content` and `content_hash`), and
   * its `document.version_created` event for the caller to append in that statement. The version
   * listeners do not run: the caller (an accepted candidate's decision) supersedes the candidates
   * staged on older bases in the same statement, as the listener would.
   */
  nextVersionWrite(
    tenantId: number,
    locked: LockedForVersion,
    from: { select: Sql; hash: string },
    source: VersionSource,
  ): { ctes: Sql; event: EventData<'document.version_created'> } {
    const { doc, next } = locked;
    const row = { id: next.versionId, number: next.number };
    return {
      ctes: this.repository.nextVersionCtes(tenantId, doc.documentId, row, from.select, source),
      event: {
        documentId: doc.documentId,
        projectId: doc.projectId,
        versionId: next.versionId,
        number: next.number,
        content_hash: from.hash,
      },
    };
  }

  async getVersion(
    tenantId: number,
    documentId: number,
    versionId: number,
  ): Promise<VersionView | null> {
    const row = await this.repository.findVersion(tenantId, documentId, versionId);
    return row ? versionView(row) : null;
  }

  async createVersion(
    tenantId: number,
    documentId: number,
    content: Record<string, unknown>,
    source: VersionSource,
  ): Promise<VersionView> {
    const doc = await this.lockDocument(tenantId, documentId);
    const stored = { json: JSON.stringify(content), hash: contentHash(content) };
    const row = await this.versions.addVersion(tenantId, doc, stored, source);
    return { ...row, content };
  }

  /**
   * Lets a context that depends on documents react to every new version inside the creating
   * transaction (the revisions module supersedes candidates staged on an older base), without
   * this module depending on it.
   */
  onVersionCreated(listener: VersionCreatedListener): void {
    this.versions.onVersionCreated(listener);
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
      const id = await this.repository.insertDocument(tenantId, projectId, title);
      const stored = { json: JSON.stringify(content), hash: contentHash(content) };
      const version = await this.versions.insertVersion(
        tenantId,
        id,
        projectId,
        stored,
        'platform',
      );
      return { documentId: id, versionId: version.versionId };
    });
  }
  private async documentRef(
    tenantId: number,
    documentId: number,
    lock: 'FOR UPDATE' | null,
  ): Promise<DocumentRef> {
    if (lock && !(await this.repository.lockForUpdate(tenantId, documentId))) {
      throw new NotFoundError('document');
    }
    return documentRefOf(await this.repository.findRef(tenantId, documentId));
  }
}

function versionView(v: VersionRow): VersionView {
  return {
    versionId: v.id,
    documentId: v.documentId,
    number: v.number,
    content: v.content,
    content_hash: v.contentHash,
    created_at: v.createdAt.toISOString(),
  };
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
