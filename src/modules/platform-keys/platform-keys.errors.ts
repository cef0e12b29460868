import { AppError } from '../../common/http/app-error.js';

const REALM = 'Bearer realm="platform"';

export class PlatformKeyRequiredError extends AppError {
  readonly code = 'unauthenticated';
  constructor() {
    super('a platform key is required (Authorization: Bearer gpk_…)');
    this.headers['WWW-Authenticate'] = REALM;
  }
}

export class InvalidPlatformKeyError extends AppError {
  readonly code = 'invalid_token';
  constructor() {
    super('the platform key is unknown or revoked');
    this.headers['WWW-Authenticate'] = `${REALM}, error="invalid_token"`;
  }
}

export class PlatformScopeError extends AppError {
  readonly code = 'insufficient_scope';
  constructor(scope: string) {
    super(`the platform key lacks the scope ${scope}`);
    this.headers['WWW-Authenticate'] = `${REALM}, error="insufficient_scope", scope="${scope}"`;
    this.extensions['scope'] = scope;
  }
}
