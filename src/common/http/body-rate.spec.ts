import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { atMinimumRate, RequestTimeoutError } from './body-rate.js';

describe('atMinimumRate', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const rate = { windowMs: 1_000, minBytes: 10 };

  it('resolves as the read does while every window brings the minimum', async () => {
    const stream = new PassThrough();
    let finish!: (v: string) => void;
    const reading = new Promise<string>((ok) => (finish = ok));
    const result = atMinimumRate(stream, rate, reading);
    stream.resume();
    for (let i = 0; i < 5; i++) {
      stream.write(Buffer.alloc(10));
      await jest.advanceTimersByTimeAsync(1_000);
    }
    finish('body');
    await expect(result).resolves.toBe('body');
    expect(stream.listenerCount('data')).toBe(0);
  });

  it('rejects with 408 request_timeout and pauses the stream when a window brings less', async () => {
    const stream = new PassThrough();
    const reading = new Promise<string>(() => undefined);
    const result = atMinimumRate(stream, rate, reading);
    const caught = result.catch((err: unknown) => err);
    stream.write(Buffer.alloc(20));
    await jest.advanceTimersByTimeAsync(1_000);
    stream.write(Buffer.alloc(9));
    await jest.advanceTimersByTimeAsync(1_000);
    const err = await caught;
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toMatchObject({ code: 'request_timeout', status: 408 });
    expect(stream.isPaused()).toBe(true);
  });

  it('sets no timer without a minimum', () => {
    const reading = Promise.resolve('x');
    expect(atMinimumRate(new PassThrough(), { windowMs: 1_000, minBytes: 0 }, reading)).toBe(
      reading,
    );
  });
});
