/** The states of a candidate revision: part of the events' contract too. */
export const REVISION_STATUSES = ['staged', 'accepted', 'rejected', 'superseded'] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];
