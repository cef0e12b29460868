import { AppError } from '../../common/http/app-error.js';

/**
 * A new version asked with an `If-Match` that is not the current version's content hash: someone
 * else's version came first (RFC 9110 §13.1.1). The body names the current version.
 */
export class PreconditionFailedError extends AppError {
  readonly code = 'precondition_failed';
  constructor(currentVersionId: number) {
    super(`If-Match does not match the content hash of the current version ${currentVersionId}`);
    this.extensions['current_version_id'] = currentVersionId;
  }
}
