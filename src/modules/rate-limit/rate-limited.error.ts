import { AppError } from '../../common/http/app-error.js';

export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly code = 'rate_limited';
  readonly title = 'Too many requests';
  constructor(retryAfterSeconds: number) {
    super(`rate limit exceeded; retry in ${retryAfterSeconds} s`);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
