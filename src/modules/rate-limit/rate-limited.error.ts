import { AppError } from '../../common/http/app-error.js';

export class RateLimitedError extends AppError {
  readonly code = 'rate_limited';
  constructor(retryAfterSeconds: number) {
    super(`rate limit exceeded; retry in ${retryAfterSeconds} s`);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
