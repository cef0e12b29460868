import { Injectable } from '@nestjs/common';
import { type Batch, batches } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { AppError, NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import { AuditService } from '../audit/audit.service.js';
import { DocumentsService } from '../documents/documents.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import type { RevisionDecisionResult } from './dto/revision.response.js';
import {
  type DecidedRevisionRow,
  type HeldRevision,
  RevisionDecisionsRepository,
} from './repository/revision-decisions.repository.js';
import { revisionEventData } from './revision-views.js';
import { RevisionNotStagedError, StaleRevisionBaseError } from './revisions.errors.js';

export const DECIDED_BY_MAX = 200;
export const DECISION_NOTE_MAX = 2000;

/**
 * What a decision does, in its own tenant transaction, once the revision's place is known: the
 * opening holds the document (`lock`), then the candidate (with its staged siblings when asked);
 * `write` makes the decision on the staged candidate.
 */
interface DecisionWork<L> {
  lock: (tenantId: number, documentId: number) => Batch<L>;
  siblings: boolean;
  write: (
    tenantId: number,
    documentId: number,
    opened: { locked: L; held: HeldRevision; rev: DecidedRevisionRow },
    decision: { decidedBy: string; note: string | null },
  ) => Promise<RevisionDecisionResult>;
}

/** How a caller other than the CLI asks for a decision. */
export interface DecisionOptions {
  /**
   * The caller writes the decision's audit line itself (the platform API's `@Audited` route, which
   * knows the key and the acting user); without it the service writes one, as for the CLI.
   */
  auditedByCaller?: boolean;
  /** Told the revision's tenant as soon as it is known, before the decision is made. */
  onTenant?: (tenantId: number) => void;
}

/**
 * The decision on a candidate, made by a platform user outside the integration API: the platform
 * API's review routes and the admin CLI call it. Each decision runs in one tenant transaction
 * holding the document row, then the revision row, in the same order as staging, so decisions and
 * stagings on a document serialise without deadlocks. Three round trips: the revision's tenant
 * (one plain statement), the opening that takes the locks and reads what the decision needs, and
 * one statement with everything it writes and its events, with the COMMIT pipelined behind it.
 */
@Injectable()
export class RevisionDecisionService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: RevisionDecisionsRepository,
    private readonly documents: DocumentsService,
    private readonly events: WebhookOutbox,
    private readonly audit: AuditService,
  ) {}

  /**
   * The candidate's content (copied in SQL, with its stored hash) becomes the document's next
   * version; the candidate is accepted and every other staged candidate of the document (all on an
   * older base, then) superseded, with `document.version_created`, each
   * `external_revision.superseded` and `external_revision.accepted`, in that order. 409
   * `version_conflict` when its base is no longer current, `revision_not_staged` when decided.
   */
  accept(
    revisionId: number,
    decidedBy: string,
    note?: string,
    options: DecisionOptions = {},
  ): Promise<RevisionDecisionResult> {
    return this.decide('revision.accept', revisionId, decidedBy, note, options, {
      lock: (t, d) => this.documents.lockedForNextVersion(t, d),
      siblings: true,
      write: async (t, d, { locked, held, rev }, decision) => {
        const { currentVersionId, projectId } = locked.doc;
        if (rev.base_version_id !== currentVersionId) {
          throw new StaleRevisionBaseError(rev.id, rev.base_version_id, currentVersionId);
        }
        const versionId = locked.next.versionId;
        const version = this.documents.nextVersionWrite(
          t,
          locked,
          { select: this.repository.contentOf(t, rev.id), hash: rev.content_hash },
          'external_revision',
        );
        const event = (
          status: 'accepted' | 'superseded',
          id: number,
          baseVersionId: number,
          resultingVersionId: number | null,
        ) =>
          revisionEventData(
            { id, documentId: d, status, baseVersionId, resultingVersionId },
            projectId,
          );
        const siblings = held.siblings.map((s) => s.id);
        const statement = this.events.appendAll(
          t,
          [
            { type: 'document.version_created', data: version.event },
            ...held.siblings.map((s) => ({
              type: 'external_revision.superseded' as const,
              data: event('superseded', s.id, s.base_version_id, null),
            })),
            {
              type: 'external_revision.accepted',
              data: event('accepted', rev.id, rev.base_version_id, versionId),
            },
          ],
          this.repository.acceptCtes(
            t,
            d,
            rev.id,
            { status: 'accepted', resultingVersionId: versionId, ...decision },
            version.ctes,
            siblings,
          ),
        );
        await this.tx.queryAndCommit(statement);
        return { revisionId: rev.id, status: 'accepted', resulting_version_id: versionId };
      },
    });
  }

  /** Marks a staged candidate rejected; 409 `revision_not_staged` when already decided. */
  reject(
    revisionId: number,
    decidedBy: string,
    note?: string,
    options: DecisionOptions = {},
  ): Promise<RevisionDecisionResult> {
    return this.decide('revision.reject', revisionId, decidedBy, note, options, {
      lock: (t, d) => this.documents.lockedDocument(t, d),
      siblings: false,
      write: async (t, d, { locked, rev }, decision) => {
        const rejected = {
          id: rev.id,
          documentId: d,
          status: 'rejected' as const,
          baseVersionId: rev.base_version_id,
          resultingVersionId: null,
        };
        const { statement } = this.events.append(
          t,
          'external_revision.rejected',
          revisionEventData(rejected, locked.projectId),
          this.repository.record(t, rev.id, { ...rejected, ...decision }),
        );
        await this.tx.queryAndCommit(statement);
        return { revisionId: rev.id, status: 'rejected', resulting_version_id: null };
      },
    });
  }

  /** Runs a decision and records it, granted or refused, in the audit trail. */
  private async decide<L>(
    action: string,
    revisionId: number,
    decidedBy: string,
    note: string | undefined,
    options: DecisionOptions,
    work: DecisionWork<L>,
  ): Promise<RevisionDecisionResult> {
    let tenantId: number | null = null;
    const entry = (outcome: 'success' | 'failure', detail: string | null) => ({
      tenantId,
      credentialRef: `platform:${decidedBy.trim().slice(0, 200)}`,
      actor: decidedBy.trim().slice(0, 200),
      action,
      target: `revision:${revisionId}`,
      outcome,
      detail,
    });
    if (options.auditedByCaller) {
      return this.decideLocated(revisionId, decidedBy, note, work, (t) => options.onTenant?.(t));
    }
    try {
      const result = await this.decideLocated(revisionId, decidedBy, note, work, (t) => {
        tenantId = t;
        options.onTenant?.(t);
      });
      await this.audit.record(entry('success', null));
      return result;
    } catch (err) {
      await this.audit.record(
        entry('failure', err instanceof AppError ? err.code : 'internal_error'),
      );
      throw err;
    }
  }

  private async decideLocated<L>(
    revisionId: number,
    decidedBy: string,
    note: string | undefined,
    work: DecisionWork<L>,
    onTenant: (tenantId: number) => void,
  ): Promise<RevisionDecisionResult> {
    validateDecision(revisionId, decidedBy, note);
    // the caller is the platform, not a tenant: the revision is found across tenants
    const at = await this.repository.locate(revisionId);
    if (!at) throw new NotFoundError('revision');
    onTenant(at.tenant_id);
    const { tenant_id: t, document_id: d } = at;
    const decision = { decidedBy: decidedBy.trim(), note: note ?? null };
    const opening = batches(work.lock(t, d), this.repository.held(t, d, revisionId, work.siblings));
    return this.tx.runOpening(t, opening, async ([locked, held]) =>
      work.write(t, d, { locked, held, rev: stagedOf(held, d) }, decision),
    );
  }
}

/** The held candidate, 404 when it is gone, 409 `revision_not_staged` when decided. */
function stagedOf(held: HeldRevision, documentId: number): DecidedRevisionRow {
  const rev = held.rev;
  if (!rev || rev.document_id !== documentId) throw new NotFoundError('revision');
  if (rev.status !== 'staged') throw new RevisionNotStagedError(rev.id, rev.status);
  return rev;
}

function validateDecision(revisionId: number, decidedBy: string, note: string | undefined): void {
  const errors: Array<{ field: string; message: string }> = [];
  if (!Number.isSafeInteger(revisionId) || revisionId < 1 || revisionId > 2_147_483_647) {
    errors.push({ field: 'revisionId', message: 'must be a positive integer' });
  }
  const by = typeof decidedBy === 'string' ? decidedBy.trim() : '';
  if (!by || [...by].length > DECIDED_BY_MAX || by.includes('\u0000')) {
    errors.push({ field: 'decided_by', message: `must be 1 to ${DECIDED_BY_MAX} characters` });
  }
  if (
    note !== undefined &&
    (typeof note !== 'string' || [...note].length > DECISION_NOTE_MAX || note.includes('\u0000'))
  ) {
    errors.push({
      field: 'decision_note',
      message: `must be at most ${DECISION_NOTE_MAX} characters`,
    });
  }
  if (errors.length) throw new ValidationFailedError(errors);
}
