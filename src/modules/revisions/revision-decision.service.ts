import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { AppError, NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import { AuditService } from '../audit/audit.service.js';
import { DocumentsService } from '../documents/documents.service.js';
import type { RevisionDecisionResult } from './dto/revision.response.js';
import { ExternalRevision } from './entities/external-revision.entity.js';
import { RevisionDecisionsRepository } from './repository/revision-decisions.repository.js';
import { RevisionNotStagedError, StaleRevisionBaseError } from './revisions.errors.js';
import { RevisionsService } from './revisions.service.js';

export const DECIDED_BY_MAX = 200;
export const DECISION_NOTE_MAX = 2000;

/**
 * The decision on a candidate, made by a platform user outside the API: the host platform calls
 * it in-process and the admin CLI wraps it. No HTTP route reaches it. Each decision runs in one
 * tenant transaction holding the document row, then the revision row, in the same order as
 * staging, so decisions and stagings on a document serialise without deadlocks.
 */
/** What a decision does to the locked candidate, inside its tenant transaction. */
type DecisionWork = (
  tenantId: number,
  rev: ExternalRevision,
  projectId: number,
  currentVersionId: number,
) => Promise<void>;

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

@Injectable()
export class RevisionDecisionService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: RevisionDecisionsRepository,
    private readonly documents: DocumentsService,
    private readonly revisions: RevisionsService,
    private readonly audit: AuditService,
  ) {}

  /**
   * Creates the next version from the candidate through `DocumentsService.createVersion`, marks the
   * candidate accepted and every other staged candidate on an older base superseded. 409
   * `version_conflict` when its base is no longer current, `revision_not_staged` when decided.
   */
  accept(
    revisionId: number,
    decidedBy: string,
    note?: string,
    options: DecisionOptions = {},
  ): Promise<RevisionDecisionResult> {
    return this.decide(
      'revision.accept',
      revisionId,
      decidedBy,
      note,
      options,
      async (tenantId, rev, projectId, current) => {
        if (rev.baseVersionId !== current) {
          throw new StaleRevisionBaseError(rev.id, rev.baseVersionId, current);
        }
        // decided before the version exists, so the version hook does not supersede it
        rev.status = 'accepted';
        rev.resultingVersionId = null;
        await this.record(tenantId, rev, decidedBy, note);
        const version = await this.documents.createVersion(
          tenantId,
          rev.documentId,
          rev.content,
          'external_revision',
        );
        rev.resultingVersionId = version.versionId;
        await this.record(tenantId, rev, decidedBy, note);
        await this.revisions.publish(tenantId, 'external_revision.accepted', rev, projectId);
      },
    );
  }

  /** Marks a staged candidate rejected; 409 `revision_not_staged` when already decided. */
  reject(
    revisionId: number,
    decidedBy: string,
    note?: string,
    options: DecisionOptions = {},
  ): Promise<RevisionDecisionResult> {
    return this.decide(
      'revision.reject',
      revisionId,
      decidedBy,
      note,
      options,
      async (tenantId, rev, projectId) => {
        rev.status = 'rejected';
        rev.resultingVersionId = null;
        await this.record(tenantId, rev, decidedBy, note);
        await this.revisions.publish(tenantId, 'external_revision.rejected', rev, projectId);
      },
    );
  }

  /** Runs a decision and records it, granted or refused, in the audit trail. */
  private async decide(
    action: string,
    revisionId: number,
    decidedBy: string,
    note: string | undefined,
    options: DecisionOptions,
    work: DecisionWork,
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
      return this.decideInTransaction(revisionId, decidedBy, note, work, (t) =>
        options.onTenant?.(t),
      );
    }
    try {
      const result = await this.decideInTransaction(revisionId, decidedBy, note, work, (t) => {
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

  private async decideInTransaction(
    revisionId: number,
    decidedBy: string,
    note: string | undefined,
    work: DecisionWork,
    onTenant: (tenantId: number) => void,
  ): Promise<RevisionDecisionResult> {
    validateDecision(revisionId, decidedBy, note);
    const tenantId = await this.tenantOf(revisionId);
    onTenant(tenantId);
    return this.tx.run(tenantId, async () => {
      const documentId = await this.repository.documentOf(tenantId, revisionId);
      if (documentId === undefined) throw new NotFoundError('revision');
      const doc = await this.documents.lockDocument(tenantId, documentId);
      const rev = await this.repository.lockRevision(tenantId, revisionId);
      if (!rev) throw new NotFoundError('revision');
      if (rev.status !== 'staged') throw new RevisionNotStagedError(rev.id, rev.status);
      await work(tenantId, rev, doc.projectId, doc.currentVersionId);
      return {
        revisionId: rev.id,
        status: rev.status,
        resulting_version_id: rev.resultingVersionId,
      };
    });
  }

  private record(
    tenantId: number,
    rev: ExternalRevision,
    decidedBy: string,
    note: string | undefined,
  ): Promise<void> {
    return this.repository.record(tenantId, rev.id, {
      status: rev.status,
      resultingVersionId: rev.resultingVersionId,
      decidedBy: decidedBy.trim(),
      note: note ?? null,
    });
  }

  /** The revision's tenant, looked up as the owner role: the caller is the platform, not a tenant. */
  private async tenantOf(revisionId: number): Promise<number> {
    const tenantId = await this.tx.runAsSystem(() => this.repository.tenantOf(revisionId));
    if (tenantId === undefined) throw new NotFoundError('revision');
    return tenantId;
  }
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
