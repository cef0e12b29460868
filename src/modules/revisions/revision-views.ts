import type { ExternalRevisionEventData } from '../events/event-catalog.js';
import type { RevisionSummaryResponse, StagedRevisionResponse } from './dto/revision.response.js';
import type { ExternalRevision } from './entities/external-revision.entity.js';

/** The fields of a candidate its events name. */
export type RevisionEventFields = Pick<
  ExternalRevision,
  'id' | 'documentId' | 'status' | 'baseVersionId' | 'resultingVersionId'
>;

/** `external_revision.*` payload (docs/integrators/verifying-webhooks.md): every key present, null where no value. */
export function revisionEventData(
  row: RevisionEventFields,
  projectId: number,
): ExternalRevisionEventData {
  return {
    revisionId: row.id,
    documentId: row.documentId,
    projectId,
    status: row.status,
    base_version_id: row.baseVersionId,
    resulting_version_id: row.resultingVersionId ?? null,
  };
}

/** A candidate as the staging response shows it. */
export function stagedView(r: ExternalRevision): StagedRevisionResponse {
  return {
    revisionId: r.id,
    documentId: r.documentId,
    base_version_id: r.baseVersionId,
    status: r.status,
    content_hash: r.contentHash,
    source_reference: r.sourceReference,
    created_at: r.createdAt.toISOString(),
  };
}

/** A candidate as lists show it: without content and html. */
export function summaryView(r: ExternalRevision): RevisionSummaryResponse {
  return {
    ...stagedView(r),
    decided_at: r.decidedAt ? r.decidedAt.toISOString() : null,
    decided_by: r.decidedBy,
    resulting_version_id: r.resultingVersionId,
    decision_note: r.decisionNote,
  };
}
