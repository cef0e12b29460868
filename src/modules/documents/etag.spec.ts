import { describe, expect, it } from '@jest/globals';
import { etagOf, ifNoneMatchHits } from './etag.js';

const HASH = 'ab'.repeat(32);
const TAG = etagOf(HASH);

describe('etag', () => {
  it('quotes the content hash', () => {
    expect(TAG).toBe(`"${HASH}"`);
  });

  it.each([`"${HASH}"`, `W/"${HASH}"`, `"x", "${HASH}"`, `"x",W/"${HASH}"`, '*', ` * `])(
    'If-None-Match %s matches',
    (header) => {
      expect(ifNoneMatchHits(header, TAG)).toBe(true);
    },
  );

  it.each([undefined, '', HASH, `"${HASH.slice(1)}"`, '"x", "y"', `"${HASH}x"`])(
    'If-None-Match %s does not match',
    (header) => {
      expect(ifNoneMatchHits(header, TAG)).toBe(false);
    },
  );
});
