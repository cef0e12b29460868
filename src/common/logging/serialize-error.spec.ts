import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { serializeError } from './logging.module.js';

/** TypeORM's error as it arrives (its fields, not the class: TypeORM stays in repositories). */
class QueryFailedError extends Error {
  constructor(
    readonly query: string,
    readonly parameters: unknown[],
    readonly driverError: Error,
  ) {
    super(driverError.message);
  }
}

describe('serializeError', () => {
  it('keeps what an error is and where, and no value it was about', () => {
    fc.assert(
      fc.property(
        fc.string().map((v) => `S3CRET${v}`),
        fc.constantFrom('parameters', 'detail', 'where', 'query', 'driverError', 'hint', 'body'),
        (secret, field) => {
          const err = new QueryFailedError('INSERT …', [secret], new Error('boom'));
          Object.assign(err, {
            code: '23514',
            constraint: 'files_size_check',
            table: 'files',
            detail: `Failing row contains (7, ${secret}).`,
            where: `SQL function "f" statement 1: ${secret}`,
            [field]: { nested: secret },
          });
          const line = JSON.stringify(serializeError(err));
          expect(line).not.toContain('S3CRET');
          expect(serializeError(err)).toMatchObject({
            type: 'QueryFailedError',
            message: 'boom',
            code: '23514',
            constraint: 'files_size_check',
            table: 'files',
          });
        },
      ),
    );
  });

  it('describes a thrown value that is not an object', () => {
    expect(serializeError('plain')).toEqual({ type: 'string', message: 'plain' });
    expect(serializeError(undefined)).toEqual({ type: 'undefined', message: 'undefined' });
  });
});
