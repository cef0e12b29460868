import { AppError, ConflictError } from '../../common/http/app-error.js';

/** Staging against a base that is no longer current (a 400, not a 409: docs/integrators/errors.md). */
export class VersionConflictError extends AppError {
  readonly code = 'version_conflict';
  constructor(message: string, baseVersionId: number, currentVersionId: number) {
    super(message);
    this.extensions['base_version_id'] = baseVersionId;
    this.extensions['current_version_id'] = currentVersionId;
  }
}

export class IdempotencyKeyReusedError extends ConflictError {
  constructor() {
    super(
      'idempotency_key_reused',
      'this Idempotency-Key was already used with a different request on this route',
    );
  }
}

export class RevisionNotStagedError extends ConflictError {
  constructor(revisionId: number, status: string) {
    super('revision_not_staged', `revision ${revisionId} is ${status}, not staged`);
  }
}

/** Accepting a candidate whose base is no longer the document's current version. */
export class StaleRevisionBaseError extends ConflictError {
  constructor(revisionId: number, baseVersionId: number, currentVersionId: number) {
    super(
      'version_conflict',
      `revision ${revisionId} is based on version ${baseVersionId}, which is no longer current (current: ${currentVersionId})`,
    );
  }
}
