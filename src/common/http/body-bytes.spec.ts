import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { BIG_BODY_BYTES } from './big-body.js';
import { declaredLength, readBodyBytes } from './body-bytes.js';

/** A request stream with these headers. */
function request(headers: Record<string, string>): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

const BIG = BIG_BODY_BYTES + 10;
const LIMIT = 5 * 1024 * 1024;

describe('readBodyBytes', () => {
  it('reads a big body of declared length into one buffer of its own, chunk by chunk', async () => {
    const req = request({ 'content-length': String(BIG) });
    const reading = readBodyBytes(req, LIMIT);
    const sent = Buffer.alloc(BIG, 'abc');
    for (let at = 0; at < BIG; at += 65_536) req.write(sent.subarray(at, at + 65_536));
    req.end();
    const bytes = await reading;
    expect(bytes.equals(sent)).toBe(true);
    // the whole memory, so that the JSON worker is handed it without a copy
    expect([bytes.byteOffset, bytes.buffer.byteLength]).toEqual([0, BIG]);
    expect(req.listenerCount('data')).toBe(0);
  });

  it('refuses bytes past the declared length as a size mismatch, and halts the stream', async () => {
    const req = request({ 'content-length': String(BIG) });
    const reading = readBodyBytes(req, LIMIT);
    req.write(Buffer.alloc(BIG + 1));
    await expect(reading).rejects.toMatchObject({ type: 'request.size.invalid', status: 400 });
    expect(req.isPaused()).toBe(true);
  });

  it('refuses a body that ends short of its declared length', async () => {
    const req = request({ 'content-length': String(BIG) });
    const reading = readBodyBytes(req, LIMIT);
    req.end(Buffer.alloc(BIG - 1));
    await expect(reading).rejects.toMatchObject({ type: 'request.size.invalid' });
  });

  it('reports a connection closed mid-body as aborted', async () => {
    const req = request({ 'content-length': String(BIG) });
    const reading = readBodyBytes(req, LIMIT);
    req.write(Buffer.alloc(100));
    req.destroy();
    await expect(reading).rejects.toMatchObject({ type: 'request.aborted' });
  });

  it('leaves small, chunked and too-big bodies to raw-body', async () => {
    const small = request({ 'content-length': '2' });
    const reading = readBodyBytes(small, LIMIT);
    small.end('{}');
    await expect(reading).resolves.toEqual(Buffer.from('{}'));
    const tooBig = request({ 'content-length': String(LIMIT + 1) });
    await expect(readBodyBytes(tooBig, LIMIT)).rejects.toMatchObject({ type: 'entity.too.large' });
    const chunked = request({ 'transfer-encoding': 'chunked' });
    const whole = readBodyBytes(chunked, LIMIT);
    chunked.end(Buffer.alloc(BIG));
    expect((await whole).length).toBe(BIG);
  });

  it('reads the declared length only from a plain decimal Content-Length', () => {
    expect(declaredLength(request({ 'content-length': ' 12 ' }))).toBe(12);
    expect(declaredLength(request({ 'content-length': '1e3' }))).toBeUndefined();
    expect(
      declaredLength(request({ 'content-length': '5', 'transfer-encoding': 'chunked' })),
    ).toBeUndefined();
  });
});
