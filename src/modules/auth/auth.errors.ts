import { AppError, ConflictError } from '../../common/http/app-error.js';

export class UnauthenticatedError extends AppError {
  readonly code = 'unauthenticated';
  constructor() {
    super('a bearer token is required');
    this.headers['WWW-Authenticate'] = 'Bearer realm="api"';
  }
}

export class InvalidTokenError extends AppError {
  readonly code = 'invalid_token';
  constructor() {
    super('the bearer token is unknown, expired or revoked');
    this.headers['WWW-Authenticate'] = 'Bearer realm="api", error="invalid_token"';
  }
}

export class InsufficientScopeError extends AppError {
  readonly code = 'insufficient_scope';
  constructor(scope: string) {
    super(`the token lacks the scope ${scope}`);
    this.headers['WWW-Authenticate'] =
      `Bearer realm="api", error="insufficient_scope", scope="${scope}"`;
    this.extensions['scope'] = scope;
  }
}

export class IpNotAllowedError extends AppError {
  readonly code = 'ip_not_allowed';
  constructor() {
    super("the caller's address is not in the credential's allowlist");
  }
}

export class ClientDisabledError extends ConflictError {
  constructor(clientId: string) {
    super(
      'client_disabled',
      `client ${clientId} is disabled; a disabled client gets no new secret`,
    );
  }
}
