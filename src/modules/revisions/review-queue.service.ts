import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError } from '../../common/http/app-error.js';
import type { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../common/pagination/cursor.js';
import { cursorPageOf, firstKey } from '../../common/pagination/keyset-page.js';
import { DocumentsService } from '../documents/documents.service.js';
import type {
  ReviewDecisionResponse,
  ReviewQueueItemResponse,
  ReviewResponse,
} from './platform/dto/review.response.js';
import {
  type ReviewQueueFilter,
  ReviewQueueRepository,
} from './repository/review-queue.repository.js';
import { RevisionDecisionService } from './revision-decision.service.js';
import { contentDiff, type JsonPatchOperation } from './revision-diff.js';
import { summaryView } from './revision-views.js';

/**
 * The host platform's review queue: candidates of every tenant (or one), each shown against its
 * base and, once superseded, against the current version; decisions go through
 * `RevisionDecisionService`, the one the admin CLI uses, so both make the same decision, the same
 * events and the same supersession. Reads run in the cross-tenant read-only transaction
 * (`TenantTransactions.readAcrossTenants`), never with row-level security off.
 */
@Injectable()
export class ReviewQueueService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: ReviewQueueRepository,
    private readonly documents: DocumentsService,
    private readonly decisions: RevisionDecisionService,
  ) {}

  /** One page of candidates in `filter.status`, oldest (lowest id) first. */
  async list(
    filter: ReviewQueueFilter,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<ReviewQueueItemResponse>>> {
    const identity = queueList(filter);
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    const row = await this.acrossTenants(() =>
      this.repository.page(filter, { after, limit: page.limit }),
    );
    return cursorPageOf(row, identity);
  }

  /**
   * The candidate with its base, its content, the diff from one to the other, and for a
   * superseded one the diff from the current version; 404 for an unknown id.
   */
  async get(revisionId: number): Promise<ReviewResponse> {
    const read = await this.acrossTenants(async () => {
      const rev = await this.repository.find(revisionId);
      if (!rev) throw new NotFoundError('revision');
      const { tenantId, documentId } = rev;
      const base = await this.documents.getVersion(tenantId, documentId, rev.baseVersionId);
      const doc = await this.documents.requireDocument(tenantId, documentId);
      const current =
        rev.status === 'superseded'
          ? await this.documents.getVersion(tenantId, documentId, doc.currentVersionId)
          : null;
      if (!base) throw new Error(`revision ${rev.id}: its base version is missing`);
      return { rev, base, current, currentVersionId: doc.currentVersionId };
    });
    const { rev, base, current, currentVersionId } = read;
    const diff = contentDiff(base.content, rev.content);
    // each diff of two large contents holds the event loop for tens of milliseconds: the
    // second waits for a turn of the loop rather than doubling the stall
    let toCurrent: JsonPatchOperation[] | null = null;
    if (current) {
      await loopTurn();
      toCurrent = contentDiff(current.content, rev.content);
    }
    return {
      ...summaryView(rev),
      tenant_id: rev.tenantId,
      base: { versionId: base.versionId, content: base.content },
      candidate: { content: rev.content, html: rev.html },
      diff,
      current_version_id: currentVersionId,
      diff_to_current: toCurrent,
    };
  }

  /** Accepts a staged candidate (`RevisionDecisionService.accept`) on behalf of `actor`. */
  accept(
    revisionId: number,
    actor: string,
    note: string | undefined,
    onTenant?: (tenantId: number) => void,
  ): Promise<ReviewDecisionResponse> {
    return this.decide('accept', revisionId, actor, note, onTenant);
  }

  /** Rejects a staged candidate (`RevisionDecisionService.reject`) on behalf of `actor`. */
  reject(
    revisionId: number,
    actor: string,
    note: string | undefined,
    onTenant?: (tenantId: number) => void,
  ): Promise<ReviewDecisionResponse> {
    return this.decide('reject', revisionId, actor, note, onTenant);
  }

  private async decide(
    kind: 'accept' | 'reject',
    revisionId: number,
    actor: string,
    note: string | undefined,
    onTenant?: (tenantId: number) => void,
  ): Promise<ReviewDecisionResponse> {
    let tenantId = 0;
    const options = {
      // the platform API's route writes the audit line (with key and actor) itself
      auditedByCaller: true,
      onTenant: (t: number) => {
        tenantId = t;
        onTenant?.(t);
      },
    };
    const result = await this.decisions[kind](revisionId, actor, note, options);
    return {
      revisionId: result.revisionId,
      tenant_id: tenantId,
      status: result.status,
      resulting_version_id: result.resulting_version_id,
    };
  }

  /** A read-only transaction as the platform's role, whose policies read every tenant's rows. */
  private acrossTenants<T>(work: () => Promise<T>): Promise<T> {
    return this.tx.readAcrossTenants(work);
  }
}

/** Resolves after the event loop has served what waited meanwhile. */
function loopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The queue's cursor identity: not a tenant's list, so the tenant slot is 0. */
function queueList(filter: ReviewQueueFilter): ListIdentity {
  return {
    tenantId: 0,
    list: 'platform.revisions',
    scope: [filter.tenantId ?? 0, filter.status, filter.documentId ?? 0],
  };
}
