import { AppError } from '../../common/http/app-error.js';

/** A live lock blocks the request; the body tells when it lapses, never its token. */
export class DocumentLockedError extends AppError {
  readonly code = 'document_locked';
  constructor(expiresAt: Date) {
    super(`the document is checked out until ${expiresAt.toISOString()}`);
    this.extensions['expires_at'] = expiresAt.toISOString();
  }
}

export class LockTokenInvalidError extends AppError {
  readonly code = 'lock_token_invalid';
  constructor() {
    super('the lock token is not the live lock of this document (wrong, expired or already used)');
  }
}
