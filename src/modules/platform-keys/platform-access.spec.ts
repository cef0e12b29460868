import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValidationFailedError } from '../../common/http/app-error.js';
import type { HttpRequest } from '../../common/http/platform/http-platform.js';
import { ACTING_USER_MAX, actingUserOf } from './platform-access.js';

/** A request whose X-Acting-User arrives as Node hands it over: the UTF-8 bytes as Latin-1. */
const withHeader = (value: string | undefined): HttpRequest =>
  ({
    headers:
      value === undefined ? {} : { 'x-acting-user': Buffer.from(value, 'utf8').toString('latin1') },
  }) as unknown as HttpRequest;

const printable = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
  // eslint-disable-next-line no-control-regex
  .map((s) => s.replace(/[\u0000-\u001f\u007f\ufffd]/g, 'x').trim())
  .filter((s) => s.length > 0 && [...s].length <= ACTING_USER_MAX);

describe('X-Acting-User', () => {
  it('reads any 1..200 characters of text as sent, in UTF-8', () => {
    fc.assert(
      fc.property(printable, (name) => {
        expect(actingUserOf(withHeader(name))).toBe(name);
      }),
    );
  });

  it('refuses absent, blank, too long and control characters with validation_failed', () => {
    const refused = fc.oneof(
      fc.constant(undefined),
      fc.stringMatching(/^[ \t]{0,5}$/),
      fc
        .string({ minLength: ACTING_USER_MAX + 1, maxLength: ACTING_USER_MAX + 40 })
        .map((s) => 'a'.repeat(ACTING_USER_MAX + 1) + s.replace(/\s/g, 'b')),
      fc
        .tuple(printable, fc.constantFrom('\u0000', '\u001b', '\u007f'))
        .map(([s, c]) => `${s}${c}x`),
    );
    fc.assert(
      fc.property(refused, (value) => {
        expect(() => actingUserOf(withHeader(value))).toThrow(ValidationFailedError);
      }),
    );
  });

  it('refuses bytes that are not UTF-8', () => {
    const req = { headers: { 'x-acting-user': '\xff\xfeana' } } as unknown as HttpRequest;
    expect(() => actingUserOf(req)).toThrow(ValidationFailedError);
  });
});
