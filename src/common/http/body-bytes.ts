import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { BIG_BODY_BYTES } from './big-body.js';

/** The body's declared `Content-Length`; undefined when chunked or not a plain decimal. */
export function declaredLength(raw: IncomingMessage): number | undefined {
  if (raw.headers['transfer-encoding'] !== undefined) return undefined;
  const length = raw.headers['content-length']?.trim();
  return length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
}

/** An error of raw-body's kind (`type`, `status`), which `bodyErrorOf` knows. */
function bodyReadError(type: string, status: number, message: string): Error {
  return Object.assign(new Error(message), { type, status, statusCode: status, expose: true });
}

/**
 * The body's bytes, up to `limit`. A big body of declared length is read into one buffer of that
 * length: raw-body keeps the socket's chunks and then concatenates them, two copies of 5 MB at
 * once (bench/README.md, "Issue 34: … session 24"). The buffer is never pooled (allocUnsafeSlow),
 * so the JSON worker is handed its memory as it is. Any other body is raw-body's.
 */
export function readBodyBytes(raw: IncomingMessage, limit: number): Promise<Buffer> {
  const length = declaredLength(raw);
  if (length === undefined || length <= BIG_BODY_BYTES || length > limit) {
    return getRawBody(raw, { length: raw.headers['content-length'], limit });
  }
  return readInto(raw, Buffer.allocUnsafeSlow(length));
}

/** Fills `into` from `stream`, as raw-body would read the same body (its errors, its halt). */
function readInto(stream: IncomingMessage, into: Buffer): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    if (!stream.readable) {
      reject(bodyReadError('stream.not.readable', 500, 'stream is not readable'));
      return;
    }
    let received = 0;
    const cleanup = (): void => {
      stream.off('aborted', onAborted);
      stream.off('close', onAborted);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onEnd);
    };
    const fail = (err: Error): void => {
      cleanup();
      stream.unpipe();
      stream.pause();
      reject(err);
    };
    function onAborted(): void {
      fail(bodyReadError('request.aborted', 400, 'request aborted'));
    }
    function onData(chunk: Buffer): void {
      if (received + chunk.length > into.length) {
        fail(
          bodyReadError('request.size.invalid', 400, 'request size did not match content length'),
        );
        return;
      }
      chunk.copy(into, received);
      received += chunk.length;
    }
    function onEnd(err?: Error): void {
      if (err) return fail(err);
      if (received !== into.length) {
        return fail(
          bodyReadError('request.size.invalid', 400, 'request size did not match content length'),
        );
      }
      cleanup();
      resolve(into);
    }
    stream.on('aborted', onAborted);
    stream.on('close', onAborted);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
  });
}
