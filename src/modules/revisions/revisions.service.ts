import { Injectable, type OnModuleInit } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { batches } from '../../common/database/statement.js';
import { NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import type { JsonText } from '../../common/http/json-text.js';
import type { CursorPage } from '../../common/pagination/cursor.js';
import { childListPage } from '../../common/pagination/keyset-page.js';
import type { Principal } from '../../common/access/principal.js';
import { DocumentsService } from '../documents/documents.service.js';
import { LocksService } from '../locks/locks.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import type {
  RevisionDetailResponse,
  RevisionSummaryResponse,
  StagedRevisionResponse,
} from './dto/revision.response.js';
import type { StageRevisionRequest } from './dto/stage-revision.request.js';
import { IdempotencyStore, type IdempotencyScope } from './idempotency.store.js';
import { RevisionsRepository } from './repository/revisions.repository.js';
import { revisionEventData, summaryView } from './revision-views.js';
import { VersionConflictError } from './revisions.errors.js';
import { requestHash, type StagingHeaders, storableContent } from './staging-content.js';
import { ifMatchSatisfied, parseIdempotencyKey, parseIfMatch } from './staging-headers.js';

export interface StagingResult {
  status: number;
  body: StagedRevisionResponse;
  location: string;
}

export function revisionLocation(documentId: number, revisionId: number): string {
  return `/api/v1/documents/${documentId}/external-revisions/${revisionId}`;
}

/**
 * Candidate external revisions: staging (the one write the API allows), reads, and keeping staged
 * candidates honest when the document moves on. Deciding lives in `RevisionDecisionService`.
 */
@Injectable()
export class RevisionsService implements OnModuleInit {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: RevisionsRepository,
    private readonly documents: DocumentsService,
    private readonly locks: LocksService,
    private readonly events: WebhookOutbox,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** Whoever creates a version (an accept here, or the platform), stale candidates are superseded. */
  onModuleInit(): void {
    this.documents.onVersionCreated(async (tenantId, documentId, versionId) => {
      await this.supersedeStale(tenantId, documentId, versionId);
    });
  }

  /**
   * Stages a candidate. The base check and the insert run in one transaction holding the document
   * row (shared), the row `DocumentsService.createVersion` locks exclusively, so no version can be
   * created between the check and the commit: a 201 was staged against the version current at its
   * commit. Two round trips: the opening reads, then the candidate with its event and the COMMIT
   * (pipelined); a third with an idempotency key.
   */
  async stage(
    principal: Principal,
    documentId: number,
    dto: StageRevisionRequest,
    headers: StagingHeaders,
  ): Promise<StagingResult> {
    // every request-level refusal (400) comes before any resource is touched
    const ifMatch = parseIfMatch(headers.ifMatch);
    const key = parseIdempotencyKey(headers.idempotencyKey);
    const { json, hash } = storableContent(dto.content);
    const { tenantId } = principal;
    const scope: IdempotencyScope | undefined = key
      ? {
          tenantId,
          credentialRef: principal.credential.ref,
          route: `POST /documents/${documentId}/external-revisions`,
          key,
        }
      : undefined;

    // One round trip opens the transaction, takes the document row (shared: stagings on one
    // document run side by side; a new version (FOR UPDATE) waits for them and they wait for it,
    // so the base check below cannot be overtaken), reads its lock and draws the candidate's id.
    const opening = batches(
      batches(
        this.documents.shareLockedDocument(tenantId, documentId),
        this.locks.writeAccess(tenantId, documentId),
      ),
      this.repository.nextRevisionId(),
    );
    return this.tx.runOpening(tenantId, opening, async ([[doc, access], revisionId]) => {
      if (scope) {
        const claim = await this.idempotency.claim(scope, requestHash(dto, json, ifMatch, headers));
        if (claim.replay) {
          const body = claim.body as unknown as StagedRevisionResponse;
          return {
            status: claim.status,
            body,
            location: revisionLocation(body.documentId, body.revisionId),
          };
        }
      }
      access.assertWritable(headers.lockToken);

      const current = doc.currentVersionId;
      const base = dto.base_version_id ?? current;
      if (dto.base_version_id !== undefined && dto.base_version_id !== null) {
        const version = await this.documents.getVersion(tenantId, documentId, base);
        if (!version) {
          throw new ValidationFailedError([
            { field: 'base_version_id', message: 'is not a version of this document' },
          ]);
        }
      }
      if (base !== current) {
        throw new VersionConflictError(
          `base version ${base} is no longer current (current: ${current})`,
          base,
          current,
        );
      }
      if (ifMatch && !ifMatchSatisfied(ifMatch, doc.currentContentHash)) {
        throw new VersionConflictError(
          `If-Match does not match the content hash of the current version ${current}`,
          base,
          current,
        );
      }

      // The candidate and its event in ONE statement (the id was drawn in the opening round trip,
      // so the event can name it); plain SQL, as TypeORM's save() deep-copies the content.
      const staged = {
        id: revisionId,
        documentId,
        baseVersionId: base,
        status: 'staged' as const,
        resultingVersionId: null,
      };
      const insert = this.repository.insertStaged({
        id: revisionId,
        tenantId,
        documentId,
        baseVersionId: base,
        json,
        contentHash: hash,
        html: dto.html ?? null,
        sourceReference: dto.source_reference ?? null,
        credentialRef: principal.credential.ref,
      });
      const { statement } = this.events.append(
        tenantId,
        'external_revision.staged',
        revisionEventData(staged, doc.projectId),
        insert,
      );
      // with an idempotency key, the key's completion below is the last statement
      const [row] = await (scope ? this.tx.query(statement) : this.tx.queryAndCommit(statement));
      const createdAt = row?.along?.[0]?.created_at;
      if (typeof createdAt !== 'string') throw new Error('the staged candidate was not returned');
      const body: StagedRevisionResponse = {
        revisionId,
        documentId,
        base_version_id: base,
        status: 'staged',
        content_hash: hash,
        source_reference: dto.source_reference ?? null,
        created_at: createdAt,
      };
      if (scope) await this.idempotency.complete(scope, 201, { ...body });
      return { status: 201, body, location: revisionLocation(documentId, revisionId) };
    });
  }

  /**
   * GET /documents/{documentId}/external-revisions: candidates of a document, ascending id,
   * without content and html, one page; 404 for an unknown or foreign document. One statement in
   * one round trip.
   */
  async list(
    tenantId: number,
    documentId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<RevisionSummaryResponse>>> {
    return childListPage(
      { tenantId, list: 'document.external_revisions', scope: [documentId] },
      page.cursor,
      (after) =>
        this.repository.page(
          this.documents.documentExists(tenantId, documentId),
          tenantId,
          documentId,
          { after, limit: page.limit },
        ),
      () => new NotFoundError('document'),
    );
  }

  /** One candidate with its content and html; 404 for unknown, foreign or of another document. */
  get(tenantId: number, documentId: number, revisionId: number): Promise<RevisionDetailResponse> {
    return this.tx.run(tenantId, async () => {
      const row = await this.repository.findRevision(tenantId, documentId, revisionId);
      if (!row) throw new NotFoundError('revision');
      return { ...summaryView(row), content: row.content, html: row.html };
    });
  }

  /**
   * Marks every staged candidate of the document whose base is not `currentVersionId` as
   * superseded and publishes `external_revision.superseded` for each. Must run inside
   * `TenantTransactions.run`, in the transaction that created the version (document row held).
   * Versions made by `DocumentsService.addVersion` run it (a version listener); an accepted
   * candidate's decision supersedes in its own statement instead.
   */
  async supersedeStale(
    tenantId: number,
    documentId: number,
    currentVersionId: number,
  ): Promise<number[]> {
    const doc = await this.documents.requireDocument(tenantId, documentId);
    const rows = await this.repository.supersedeStale(tenantId, documentId, currentVersionId);
    for (const r of rows) {
      await this.events.publish(tenantId, 'external_revision.superseded', {
        revisionId: r.id,
        documentId,
        projectId: doc.projectId,
        status: 'superseded',
        base_version_id: r.base_version_id,
        resulting_version_id: null,
      });
    }
    return rows.map((r) => r.id);
  }
}
