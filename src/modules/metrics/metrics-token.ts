import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../common/http/app-error.js';

/** `/metrics` on the API port without the metrics token, or with another. */
export class MetricsTokenError extends AppError {
  readonly code = 'unauthenticated';
  constructor() {
    super('/metrics takes the metrics bearer token');
    this.headers['WWW-Authenticate'] = 'Bearer realm="metrics"';
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `authorization` is `Bearer <token>`. Both sides are compared as SHA-256 digests with
 * `timingSafeEqual`: equal lengths whatever was sent, and the time tells nothing of the token.
 */
export function carriesMetricsToken(authorization: string | undefined, token: string): boolean {
  const sent = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(sent), digest(token)) && sent.length > 0;
}
