import { Injectable } from '@nestjs/common';
import { type Batch, batchOf, batches, type Sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import { type IfMatch, ifMatchSatisfied } from '../../common/http/if-match.js';
import type { FreeJsonValue } from '../../common/http/prepared-json.js';
import { type StorableContent, storableContent } from '../../common/http/storable-content.js';
import { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../common/pagination/cursor.js';
import { cursorPageOf, firstKey } from '../../common/pagination/keyset-page.js';
import type { EventData } from '../events/event-catalog.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { contentHash } from './content-hash.js';
import type {
  DocumentRef,
  DocumentSummary,
  DocumentView,
  VersionIndexEntry,
  VersionView,
} from './document-views.js';
import { PreconditionFailedError } from './documents.errors.js';
import {
  DocumentsRepository,
  type DocumentRefRow,
  type PlatformDocumentRow,
} from './documents.repository.js';
import type { DocumentVersion, VersionSource } from './entities/document-version.entity.js';
import { jsonbText } from '../../common/http/canonical-json.js';

/** A document as the platform API answers it: its own id, and its current version's hash. */
export interface PlatformDocumentView {
  documentId: number;
  projectId: number;
  external_id: string;
  title: string;
  status: string;
  current_version_id: number;
  content_hash: string;
  created_at: string;
  updated_at: string;
}

/** A new version as the platform API answers it (without the content it was sent). */
export interface PlatformVersionView {
  versionId: number;
  documentId: number;
  number: number;
  content_hash: string;
  source: VersionSource;
  created_at: string;
}

/** A document held for its next version, and that version's id and number, drawn already. */
export interface LockedForVersion {
  doc: DocumentRef;
  next: { versionId: number; number: number };
}

/** Called inside the transaction that created a version, after its row exists. */
export type VersionCreatedListener = (
  tenantId: number,
  documentId: number,
  versionId: number,
) => Promise<void>;

/**
 * The existing document service: documents and their versions. `addVersion` makes every later
 * version of platform edits, `nextVersionWrite` those of accepted external revisions. Unless a
 * method says otherwise it must run inside `TenantTransactions.run`, whose transaction it joins.
 */
@Injectable()
export class DocumentsService {
  private readonly versionListeners: VersionCreatedListener[] = [];

  constructor(
    private readonly tx: TenantTransactions,
    private readonly events: WebhookOutbox,
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
    const row = await this.addVersion(tenantId, doc, stored, source);
    return { ...row, content };
  }

  /**
   * A version made by the platform's own editing (source `platform`), in its own tenant
   * transaction: with `ifMatch`, only while the current version's content hash is one it names
   * (else 412 `precondition_failed`), checked under the document row's lock so no version can slip
   * in between. It supersedes the candidates staged on older bases exactly as an accepted
   * candidate's version does: both are made by `addVersion`, which runs the version listeners.
   */
  createPlatformVersion(
    tenantId: number,
    documentId: number,
    content: FreeJsonValue<Record<string, unknown>>,
    ifMatch?: IfMatch,
  ): Promise<PlatformVersionView> {
    const stored = storableContent(content);
    return this.tx.run(tenantId, async () => {
      const doc = await this.lockDocument(tenantId, documentId);
      if (ifMatch && !ifMatchSatisfied(ifMatch, doc.currentContentHash)) {
        throw new PreconditionFailedError(doc.currentVersionId);
      }
      const v = await this.addVersion(tenantId, doc, stored, 'platform');
      return {
        versionId: v.versionId,
        documentId: v.documentId,
        number: v.number,
        content_hash: v.content_hash,
        source: 'platform',
        created_at: v.created_at,
      };
    });
  }

  /**
   * Inside a tenant transaction, the project the tenant's: the document the platform names
   * `externalId`, created with `first` as its first version (source `platform`, publishing
   * `document.version_created`) or updated (title, project; `first` is then not used). Without
   * `first` nothing is created: 400 `validation_failed` when the document does not exist yet.
   * Answers its id and whether it was created.
   */
  async upsertPlatformDocument(
    tenantId: number,
    projectId: number,
    externalId: string,
    title: string,
    first: StorableContent | undefined,
  ): Promise<{ documentId: number; created: boolean }> {
    if (!first) {
      const row = await this.repository.updateDocumentByExternalId(
        tenantId,
        projectId,
        externalId,
        title,
      );
      if (!row) {
        throw new ValidationFailedError([
          { field: 'content', message: 'is required when the document is created' },
        ]);
      }
      return { documentId: row.id, created: false };
    }
    const row = await this.repository.upsertDocument(tenantId, projectId, externalId, title, first);
    if (row.created && row.version_id !== null && row.version_number !== null) {
      await this.events.publish(tenantId, 'document.version_created', {
        documentId: row.id,
        projectId,
        versionId: row.version_id,
        number: row.version_number,
        content_hash: first.hash,
      });
    }
    return { documentId: row.id, created: row.created };
  }

  /**
   * `upsertPlatformDocument` for many documents with their first versions' content, in one
   * statement and their events in another (a bulk import's). The platform's ids must differ from
   * each other. Answers, per id, the document and whether it was created.
   */
  async upsertPlatformDocuments(
    tenantId: number,
    docs: ReadonlyArray<{
      projectId: number;
      externalId: string;
      title: string;
      first: StorableContent;
    }>,
  ): Promise<Map<string, { documentId: number; created: boolean }>> {
    // one statement's arrays of text: a bulk import's lines are parsed here, never prepared bytes
    const rows = await this.repository.upsertDocuments(
      tenantId,
      docs.map((d) => ({ ...d, first: { json: jsonbText(d.first.json), hash: d.first.hash } })),
    );
    const byId = new Map(rows.map((r) => [r.external_id, r]));
    const events: Array<EventData<'document.version_created'>> = [];
    const result = new Map<string, { documentId: number; created: boolean }>();
    for (const doc of docs) {
      const row = byId.get(doc.externalId);
      if (!row) throw new Error(`the upsert did not answer document ${doc.externalId}`);
      result.set(doc.externalId, { documentId: row.id, created: row.created });
      if (row.created && row.version_id !== null && row.version_number !== null) {
        events.push({
          documentId: row.id,
          projectId: row.project_id,
          versionId: row.version_id,
          number: row.version_number,
          content_hash: doc.first.hash,
        });
      }
    }
    await this.events.publishMany(tenantId, 'document.version_created', events);
    return result;
  }

  /**
   * PUT of a document by the platform's id: `upsertPlatformDocument` in its own tenant
   * transaction (or the caller's), 404 `not_found` for an unknown or foreign project, answering
   * the document as it is now.
   */
  putPlatformDocument(
    tenantId: number,
    projectId: number,
    externalId: string,
    input: { title: string; content?: FreeJsonValue<Record<string, unknown>> },
  ): Promise<{ created: boolean; view: PlatformDocumentView }> {
    const first = input.content === undefined ? undefined : storableContent(input.content);
    return this.tx.run(tenantId, async () => {
      if (!(await this.projects.findProject(tenantId, projectId))) {
        throw new NotFoundError('project');
      }
      const { documentId, created } = await this.upsertPlatformDocument(
        tenantId,
        projectId,
        externalId,
        input.title,
        first,
      );
      const row = await this.repository.platformDocument(tenantId, documentId);
      if (!row) throw new NotFoundError('document');
      return { created, view: platformDocumentView(row) };
    });
  }

  /** The tenant a document belongs to (owner role, across tenants); 404 when there is none. */
  tenantOfDocument(documentId: number): Promise<number> {
    return this.tx.runAsSystem(async () => {
      const tenantId = await this.repository.tenantOfDocument(documentId);
      if (tenantId === undefined) throw new NotFoundError('document');
      return tenantId;
    });
  }

  /**
   * The document row locked by this transaction: its next version, made current, with its
   * `document.version_created` event; then every version listener (the revisions module
   * supersedes the candidates staged on an older base). The one path of every later version.
   */
  private async addVersion(
    tenantId: number,
    doc: DocumentRef,
    stored: StorableContent,
    source: VersionSource,
  ): Promise<Omit<VersionView, 'content'>> {
    const version = await this.insertVersion(
      tenantId,
      doc.documentId,
      doc.projectId,
      stored,
      source,
    );
    for (const listener of this.versionListeners) {
      await listener(tenantId, doc.documentId, version.versionId);
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
      const doc = await this.repository.insertDocument(tenantId, projectId, title);
      const stored = { json: JSON.stringify(content), hash: contentHash(content) };
      const version = await this.insertVersion(tenantId, doc.id, projectId, stored, 'platform');
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
    const identity = versionsList(tenantId, documentId);
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    const row = await this.repository.versionPage(tenantId, documentId, {
      after,
      limit: page.limit,
    });
    if (!row?.found) throw new NotFoundError('document');
    return cursorPageOf(row, identity);
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
    const row = await this.repository.projectDocumentPage(
      this.projects.projectExists(tenantId, projectId),
      tenantId,
      projectId,
      { after, limit: page.limit },
    );
    if (!row?.found) throw this.projects.projectNotFound();
    return cursorPageOf(row, identity);
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

  /** The document row must already be locked (or just created) by this transaction. */
  private async insertVersion(
    tenantId: number,
    documentId: number,
    projectId: number,
    stored: StorableContent,
    source: VersionSource,
  ): Promise<Omit<VersionView, 'content'>> {
    const { json, hash } = stored;
    const row = await this.repository.insertVersion(tenantId, documentId, { json, hash, source });
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

function platformDocumentView(r: PlatformDocumentRow): PlatformDocumentView {
  return {
    documentId: r.id,
    projectId: r.project_id,
    // a document the platform put has its id: it was found by it
    external_id: r.external_id ?? '',
    title: r.title,
    status: r.status,
    current_version_id: r.current_version_id,
    content_hash: r.content_hash,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
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

/** The list of a document's versions: its cursors are also the document read's. */
function versionsList(tenantId: number, documentId: number): ListIdentity {
  return { tenantId, list: 'document.versions', scope: [documentId] };
}
