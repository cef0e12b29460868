/** The states of a candidate revision: defined by the events' contract, which carries them. */
export { REVISION_STATUSES, type RevisionStatus } from '../events/revision-status.js';
