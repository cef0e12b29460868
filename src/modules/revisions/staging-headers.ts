import { ValidationFailedError } from '../../common/http/app-error.js';

// one If-Match rule for staging and the platform's new versions
export { type IfMatch, ifMatchSatisfied, parseIfMatch } from '../../common/http/if-match.js';

export const IDEMPOTENCY_KEY_MAX = 255;

export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length < 1 || header.length > IDEMPOTENCY_KEY_MAX) {
    throw new ValidationFailedError([
      { field: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` },
    ]);
  }
  return header;
}
