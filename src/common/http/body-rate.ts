import type { Readable } from 'node:stream';
import { AppError } from './app-error.js';

/** The least a body must bring while it is read: `minBytes` in every `windowMs` (0: no minimum). */
export interface BodyRate {
  readonly windowMs: number;
  readonly minBytes: number;
}

/** A body that came in slower than the minimum rate: answered 408, its connection closed. */
export class RequestTimeoutError extends AppError {
  readonly code = 'request_timeout';
  constructor(rate: BodyRate) {
    super(`the request body came slower than ${rate.minBytes} bytes in ${rate.windowMs} ms`);
  }
}

/**
 * Resolves as `reading` (the read of `stream`'s body) does, unless a whole window passes in
 * which fewer than `rate.minBytes` arrive: then it rejects with `RequestTimeoutError` and the
 * stream is paused, so nothing more is read for it. Without a minimum, a body trickled a byte at
 * a time held its connection until Node's request timeout (5 minutes).
 */
export function atMinimumRate<T>(
  stream: Readable,
  rate: BodyRate,
  reading: Promise<T>,
): Promise<T> {
  if (rate.minBytes === 0) return reading;
  return new Promise<T>((resolve, reject) => {
    let received = 0;
    let counted = 0;
    const count = (chunk: Buffer): void => {
      received += chunk.length;
    };
    const settle = (): void => {
      clearInterval(timer);
      stream.off('data', count);
    };
    const timer = setInterval(() => {
      if (received - counted >= rate.minBytes) {
        counted = received;
        return;
      }
      settle();
      stream.pause();
      reject(new RequestTimeoutError(rate));
    }, rate.windowMs);
    timer.unref();
    stream.on('data', count);
    // a read abandoned for its rate settles when its connection closes: nobody waits for it then
    reading.finally(settle).then(resolve, reject);
  });
}

/** The minimum rate the configuration sets. */
export function bodyRateOf(config: {
  BODY_RATE_WINDOW_MS: number;
  BODY_MIN_BYTES_PER_WINDOW: number;
}): BodyRate {
  return { windowMs: config.BODY_RATE_WINDOW_MS, minBytes: config.BODY_MIN_BYTES_PER_WINDOW };
}
