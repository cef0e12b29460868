import { StringDecoder } from 'node:string_decoder';

/**
 * Up to `max` bytes from the start of `body`, without reading further (the stream is left paused
 * for `dump`). Whatever arrived is answered when the body ends, fails or the deadline passes.
 */
export function readHead(
  body: NodeJS.ReadableStream,
  max: number,
  signal: AbortSignal,
): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      body.off('data', onData);
      body.off('end', done);
      body.off('error', done);
      body.off('close', done);
      signal.removeEventListener('abort', done);
      body.pause();
      resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const taken = bytes.subarray(0, max - size);
      chunks.push(taken);
      size += taken.length;
      if (size >= max) done();
    };
    // stays: an error between this read and dump() must not go unheard (it would end the process)
    body.on('error', () => undefined);
    if (signal.aborted || max <= 0) {
      resolve(Buffer.alloc(0));
      return;
    }
    signal.addEventListener('abort', done);
    body.on('end', done);
    body.on('error', done);
    body.on('close', done);
    body.on('data', onData);
  });
}

/**
 * The bytes of a response excerpt as text that PostgreSQL stores and JSON carries: UTF-8, with a
 * character cut by the byte limit dropped (never half of one), invalid sequences as U+FFFD, and
 * U+0000 (which a `text` column refuses, and which would fail the whole batch's result write) as
 * U+FFFD too.
 */
export function excerptText(bytes: Buffer): string {
  // write() without end() holds back an incomplete last character instead of replacing it
  return new StringDecoder('utf8').write(bytes).replaceAll('\u0000', '\uFFFD');
}
