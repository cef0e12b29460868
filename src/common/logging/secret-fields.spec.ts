import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { pino } from 'pino';
import { LOG_HYGIENE } from './logging.module.js';
import { CENSOR, withoutSecretHeaders, withoutSecrets } from './secret-fields.js';

const SECRET = 'very-secret-value-0123456789';
/**
 * The contract, pinned here rather than imported: each field that must never reach a log line in
 * clear, with the secret it carries.
 */
const CARRIES = {
  authorization: 'the Authorization header, as a field',
  client_secret: "an OAuth client's secret",
  access_token: 'an issued access token',
  token: 'a PAT as created',
  lock_token: "a lock's token",
  secret: "a webhook's signing secret",
  storage_location: "where a file's bytes live",
};
const FIELDS = Object.keys(CARRIES);
const HEADERS = ['authorization', 'cookie', 'lock-token', 'proxy-authorization', 'set-cookie'];

/** One line through a logger configured as the service's. */
function logged(object: Record<string, unknown>): string {
  let line = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      line += chunk.toString('utf8');
      done();
    },
  });
  pino(LOG_HYGIENE, sink).info(object, 'probe');
  return line;
}

describe('withoutSecrets', () => {
  it('censors each secret field at the top level and one level down, and header sets', () => {
    for (const field of FIELDS) {
      const line = logged({ [field]: SECRET, grant: { [field]: SECRET, kept: 'k' } });
      expect(line).not.toContain(SECRET);
      expect(JSON.parse(line)).toMatchObject({
        [field]: CENSOR,
        grant: { [field]: CENSOR, kept: 'k' },
      });
    }
    for (const header of HEADERS) {
      const line = logged({
        headers: { [header]: SECRET, accept: 'a' },
        req: { headers: { [header]: SECRET } },
      });
      expect(line).not.toContain(SECRET);
      expect(JSON.parse(line)).toMatchObject({ headers: { [header]: CENSOR, accept: 'a' } });
    }
  });

  it('any line that places secrets where the rules name them loses them all (property)', () => {
    const key = fc
      .string({ minLength: 1, maxLength: 8 })
      .filter((k) => !FIELDS.includes(k) && k !== 'headers');
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
        fc.subarray(FIELDS, { minLength: 1 }),
        fc.subarray(HEADERS),
        key,
        (plain, fields, headers, parent) => {
          const nested: Record<string, unknown> = { ...plain };
          for (const f of fields) nested[f] = SECRET;
          const headerSet = Object.fromEntries(headers.map((h) => [h, SECRET]));
          const object = { ...plain, [parent]: nested, headers: headerSet, [fields[0]!]: SECRET };
          const before = JSON.stringify(object);
          const line = logged(object);
          expect(line).not.toContain(SECRET);
          // the caller's object is left as it was
          expect(JSON.stringify(object)).toBe(before);
        },
      ),
    );
  });

  it('leaves a line without secrets as it is, the same object', () => {
    const object = { res: { statusCode: 200 }, responseTime: 3, list: [{ token: 'in an array' }] };
    expect(withoutSecrets(object)).toBe(object);
    const headers = { accept: 'x' };
    expect(withoutSecretHeaders(headers)).toBe(headers);
  });
});
