import { describe, expect, it } from '@jest/globals';
import { ValidationFailedError } from '../http/app-error.js';
import { Cursor, MAX_CURSOR_LENGTH } from './cursor.js';

const list = { tenantId: 7, list: 'project.documents', scope: [3] };
const b64 = (value: unknown): string =>
  Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('Cursor', () => {
  it('round-trips a key for the same tenant and list', () => {
    const cursor = Cursor.encode(list, [120]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Cursor.decode(list, cursor)).toEqual([120]);
    expect(Cursor.decode({ ...list, scope: [3] }, cursor)).toEqual([120]);
  });

  it('answers null without a cursor (the first page)', () => {
    expect(Cursor.decode(list, undefined)).toBeNull();
  });

  it.each([
    ['another tenant', { ...list, tenantId: 8 }],
    ['another list', { ...list, list: 'project.files' }],
    ['another parent', { ...list, scope: [4] }],
    ['a list without scope', { tenantId: 7, list: 'project.documents' }],
  ])('refuses a cursor used for %s', (_, other) => {
    const cursor = Cursor.encode(list, [120]);
    expect(() => Cursor.decode(other, cursor)).toThrow(ValidationFailedError);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['a trailing character', `${Cursor.encode(list, [1])}x`],
    ['too long', 'A'.repeat(MAX_CURSOR_LENGTH + 1)],
    ['another version', b64([2, 7, 'project.documents', [3], [1]])],
    ['a string key', b64([1, 7, 'project.documents', [3], ['1']])],
    ['a negative key', b64([1, 7, 'project.documents', [3], [-1]])],
    ['a fractional key', b64([1, 7, 'project.documents', [3], [1.5]])],
    ['a key too long', b64([1, 7, 'project.documents', [3], [1, 2]])],
    ['an object', b64({ v: 1 })],
  ])('refuses %s with one answer naming the cursor', (_, cursor) => {
    let error: unknown;
    try {
      Cursor.decode(list, cursor);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).errors).toEqual([
      { field: 'cursor', message: expect.stringContaining('not a cursor of this list') },
    ]);
  });
});
