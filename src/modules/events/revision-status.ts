/**
 * The states of a candidate revision. The revision events carry them, so they are part of the
 * events' contract, which the revisions context publishes to (and re-exports from
 * revisions/revision-status.ts); defined here so that events depend on no publisher.
 */
export const REVISION_STATUSES = ['staged', 'accepted', 'rejected', 'superseded'] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];
