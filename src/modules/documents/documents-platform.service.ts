import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import { type IfMatch, ifMatchSatisfied } from '../../common/http/if-match.js';
import type { FreeJsonValue } from '../../common/http/prepared-json.js';
import { type StorableContent, storableContent } from '../../common/http/storable-content.js';
import { jsonbText } from '../../common/http/canonical-json.js';
import type { EventData } from '../events/event-catalog.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { DocumentVersionWriter } from './document-version-writer.js';
import { PreconditionFailedError } from './documents.errors.js';
import {
  DocumentsPlatformRepository,
  type PlatformDocumentRow,
} from './documents-platform.repository.js';
import { DocumentsService } from './documents.service.js';
import type { VersionSource } from './entities/document-version.entity.js';

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

/**
 * The platform API's writes of documents (the content context's door to them): documents put by
 * the platform's own ids, their bulk import, and versions of the platform's own editing.
 */
@Injectable()
export class DocumentsPlatformService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly events: WebhookOutbox,
    private readonly projects: ProjectsService,
    private readonly repository: DocumentsPlatformRepository,
    private readonly documents: DocumentsService,
    private readonly versions: DocumentVersionWriter,
  ) {}

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
      const doc = await this.documents.lockDocument(tenantId, documentId);
      if (ifMatch && !ifMatchSatisfied(ifMatch, doc.currentContentHash)) {
        throw new PreconditionFailedError(doc.currentVersionId);
      }
      const v = await this.versions.addVersion(tenantId, doc, stored, 'platform');
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
