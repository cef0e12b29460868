import { Injectable } from '@nestjs/common';
import type { StorableContent } from '../../common/http/storable-content.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import type { DocumentRef, VersionView } from './document-views.js';
import { DocumentsRepository } from './documents.repository.js';
import type { VersionSource } from './entities/document-version.entity.js';

/** Called inside the transaction that created a version, after its row exists. */
export type VersionCreatedListener = (
  tenantId: number,
  documentId: number,
  versionId: number,
) => Promise<void>;

/**
 * Writes a document's versions with their `document.version_created` events, and runs the version
 * listeners: the documents services share it, so every later version takes the one path.
 */
@Injectable()
export class DocumentVersionWriter {
  private readonly versionListeners: VersionCreatedListener[] = [];

  constructor(
    private readonly events: WebhookOutbox,
    private readonly repository: DocumentsRepository,
  ) {}

  /**
   * The document row locked by this transaction: its next version, made current, with its
   * `document.version_created` event; then every version listener (the revisions module
   * supersedes the candidates staged on an older base). The one path of every later version.
   */
  async addVersion(
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

  /** The document row must already be locked (or just created) by this transaction. */
  async insertVersion(
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
