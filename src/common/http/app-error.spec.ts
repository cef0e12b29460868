import { describe, expect, it } from '@jest/globals';
import { NotFoundError, ServiceUnavailableError, ValidationFailedError } from './app-error.js';

describe('AppError', () => {
  it('carries no stack frames (an expected outcome, answered as a problem)', () => {
    for (const err of [
      new NotFoundError('document'),
      new ValidationFailedError([{ field: 'content', message: 'is required' }]),
      new ServiceUnavailableError(),
    ]) {
      expect(err).toBeInstanceOf(Error);
      expect(err.stack).not.toMatch(/\n\s+at /);
      expect(err.message.length).toBeGreaterThan(0);
    }
    expect(new NotFoundError('document').stack).toBe('Error: document not found');
  });

  it('leaves stack traces of every other error as they were', () => {
    const before = Error.stackTraceLimit;
    new NotFoundError();
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });

  it('keeps its members: status, code, headers', () => {
    const err = new ServiceUnavailableError();
    expect(err.status).toBe(503);
    expect(err.code).toBe('service_unavailable');
    expect(err.headers['Retry-After']).toBe('5');
  });
});
